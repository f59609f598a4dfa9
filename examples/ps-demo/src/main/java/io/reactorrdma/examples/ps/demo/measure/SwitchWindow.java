package io.reactorrdma.examples.ps.demo.measure;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The context switches of some processes' threads between {@link #open} and {@link #close()}:
 * every thread's, and the I/O threads' a comm predicate picks. Unknown when any of the processes
 * could not be read at either end (no {@code /proc}, or no process given).
 */
public final class SwitchWindow {

    private final ThreadSwitches source;
    private final List<String> pids;
    private final Predicate<String> io;
    private final List<ThreadSwitches.Snapshot> before;

    private SwitchWindow(ThreadSwitches source, List<String> pids, Predicate<String> io, List<ThreadSwitches.Snapshot> before) {
        this.source = source;
        this.pids = pids;
        this.io = io;
        this.before = before;
    }

    /** Reads {@code pids} (numbers, or {@code self}) now; {@code io} picks their I/O threads by comm. */
    public static SwitchWindow open(ThreadSwitches source, List<String> pids, Predicate<String> io) {
        List<String> copy = List.copyOf(pids);
        return new SwitchWindow(source, copy, io, readAll(source, copy));
    }

    /** Reads them again: the switches made since {@link #open}, summed over the processes. */
    public Switches close() {
        List<ThreadSwitches.Snapshot> after = before == null ? null : readAll(source, pids);
        if (after == null) {
            return Switches.UNKNOWN;
        }
        Switches sum = new Switches(0, 0);
        for (int i = 0; i < pids.size(); i++) {
            sum = sum.plus(after.get(i).since(before.get(i), io));
        }
        return sum;
    }

    /** Every process's snapshot, in order; null when there is none or one cannot be read. */
    private static List<ThreadSwitches.Snapshot> readAll(ThreadSwitches source, List<String> pids) {
        if (pids.isEmpty()) {
            return null;
        }
        List<ThreadSwitches.Snapshot> all = new ArrayList<>(pids.size());
        for (String pid : pids) {
            Optional<ThreadSwitches.Snapshot> s = source.read(pid);
            if (s.isEmpty()) {
                return null;
            }
            all.add(s.get());
        }
        return all;
    }
}
