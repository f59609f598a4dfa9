package io.reactorrdma.examples.ps.demo.measure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Reads the context switches of a process's threads from Linux's {@code /proc}: for each thread
 * {@code <tid>} of {@code /proc/<pid>/task}, its comm ({@code comm}: the name, cut to 15 bytes)
 * and {@code voluntary_ctxt_switches + nonvoluntary_ctxt_switches} of its {@code status}. No
 * shelling out. A thread that ends while it is being read is left out; where the task directory
 * cannot be listed (no {@code /proc}, the process gone) or a status lacks the counters, the
 * process reads as unknown, never as a wrong count.
 */
public final class ThreadSwitches {

    /** This host's {@code /proc}. */
    public static final ThreadSwitches PROC = new ThreadSwitches(Path.of("/proc"));

    private static final String VOLUNTARY = "voluntary_ctxt_switches:";
    private static final String NONVOLUNTARY = "nonvoluntary_ctxt_switches:";

    private final Path proc;

    /** A reader of the proc file system mounted at {@code proc}. */
    public ThreadSwitches(Path proc) {
        this.proc = proc;
    }

    /** One thread as read: its comm and its switches so far. */
    public record Thread(String comm, long switches) {
    }

    /** A process's threads by tid, as read at one moment. */
    public record Snapshot(Map<Long, Thread> threads) {

        public Snapshot {
            threads = Map.copyOf(threads);
        }

        /**
         * The switches made since {@code before} (an earlier snapshot of the same process), of every
         * thread and of those {@code io} picks by comm. A thread seen in both counts its growth; a
         * thread new since (or whose count went down: its tid reused by a new thread) counts all of
         * its switches, made since it started; a thread that ended in between is left out.
         */
        public Switches since(Snapshot before, Predicate<String> io) {
            long all = 0;
            long ioSum = 0;
            for (Map.Entry<Long, Thread> e : threads.entrySet()) {
                Thread now = e.getValue();
                Thread then = before.threads.get(e.getKey());
                long d = then == null || then.switches > now.switches ? now.switches : now.switches - then.switches;
                all += d;
                if (io.test(now.comm)) {
                    ioSum += d;
                }
            }
            return new Switches(all, ioSum);
        }
    }

    /**
     * The voluntary plus involuntary context switches a thread's {@code status} text reports; -1
     * when either line is missing or not a number.
     */
    public static long parseStatus(String status) {
        long voluntary = -1;
        long involuntary = -1;
        for (String line : status.split("\n")) {
            if (line.startsWith(VOLUNTARY)) {
                voluntary = number(line.substring(VOLUNTARY.length()));
            } else if (line.startsWith(NONVOLUNTARY)) {
                involuntary = number(line.substring(NONVOLUNTARY.length()));
            }
        }
        return voluntary < 0 || involuntary < 0 ? -1 : voluntary + involuntary;
    }

    private static long number(String s) {
        try {
            long n = Long.parseLong(s.trim());
            return n < 0 ? -1 : n;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The threads of process {@code pid} (a number, or {@code self}) now; empty when they cannot be read. */
    public Optional<Snapshot> read(String pid) {
        Path tasks = proc.resolve(pid).resolve("task");
        Map<Long, Thread> threads = new HashMap<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path task : dir) {
                long tid;
                try {
                    tid = Long.parseLong(task.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                String comm;
                String status;
                try {
                    comm = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                    status = Files.readString(task.resolve("status"), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    continue; // the thread ended between the listing and the read
                }
                long switches = parseStatus(status);
                if (switches < 0) {
                    return Optional.empty(); // a kernel without the counters: unknown, not zero
                }
                threads.put(tid, new Thread(comm, switches));
            }
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        return threads.isEmpty() ? Optional.empty() : Optional.of(new Snapshot(threads));
    }
}
