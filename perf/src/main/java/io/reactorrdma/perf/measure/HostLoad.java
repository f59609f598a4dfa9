package io.reactorrdma.perf.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU used on this machine by processes other than this one and its reaped children (Linux
 * {@code /proc}): all busy CPU time from {@code /proc/stat} minus this process's
 * {@code utime + stime + cutime + cstime} from {@code /proc/self/stat}. A JMH fork that has exited
 * and been waited for counts as a child, so over a benchmark cell the difference is what the rest of
 * a shared machine took. Elsewhere (no /proc) every reading is -1.
 */
public final class HostLoad {

    private static final Path STAT = Path.of("/proc/stat");
    private static final Path SELF = Path.of("/proc/self/stat");
    /** USER_HZ: Linux reports both files in clock ticks of 1/100 s on every mainstream build. */
    private static final double TICKS_PER_SECOND = 100.0;

    /** A reading: machine busy ticks, this process's (and children's) ticks, wall time. */
    public record Reading(long busyTicks, long selfTicks, long nanos) {
    }

    private HostLoad() {
    }

    /** Now, or null without /proc. */
    public static Reading read() {
        try {
            List<String> lines = Files.readAllLines(STAT);
            String[] cpu = lines.get(0).trim().split("\\s+"); // cpu user nice system idle iowait irq softirq steal ...
            long busy = 0;
            for (int i = 1; i < cpu.length && i <= 8; i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(cpu[i]);
                }
            }
            String self = Files.readString(SELF);
            String[] f = self.substring(self.lastIndexOf(')') + 2).trim().split("\\s+");
            // after "pid (comm) ": state=0 ... utime=11 stime=12 cutime=13 cstime=14
            long selfTicks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            return new Reading(busy, selfTicks, System.nanoTime());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Average cores the rest of the machine kept busy between two readings; -1 when unknown. */
    public static double othersCores(Reading from, Reading to) {
        if (from == null || to == null || to.nanos <= from.nanos) {
            return -1;
        }
        double seconds = (to.nanos - from.nanos) / 1e9;
        long others = (to.busyTicks - from.busyTicks) - (to.selfTicks - from.selfTicks);
        return Math.max(0, others / TICKS_PER_SECOND / seconds);
    }

    /** Others' cores over the next {@code millis}. */
    public static double sampleOthers(long millis) {
        Reading a = read();
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return othersCores(a, read());
    }
}
