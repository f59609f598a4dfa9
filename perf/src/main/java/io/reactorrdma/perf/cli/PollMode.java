package io.reactorrdma.perf.cli;

import io.reactorrdma.tools.cli.UsageException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How a side waits for completions. */
public enum PollMode {
    /**
     * The library's default idle policy ({@code RdmaResources}' {@code IdleStrategy.BACK_OFF}): the I/O thread spins some
     * tens of microseconds while recent spins found work soon, then blocks on completion notification (almost at once while
     * they did not). Only where the library's engine runs the I/O (echo,
     * rsocket-*, fanout); send-lat and write-bw poll their completion queues by hand and refuse it.
     */
    BACK_OFF("back-off"),
    /** Busy-poll the completion queue. */
    SPIN("spin"),
    /** Arm the queue and sleep until a completion event (requestNotification / poll / awaitNotification). */
    BLOCK("block");

    private final String id;

    PollMode(String id) {
        this.id = id;
    }

    /** The name on the command line, in the CSV's {@code poll} column and in the tables. */
    public String id() {
        return id;
    }

    public static PollMode parse(String s) {
        return CliIds.parse(values(), PollMode::id, s,
                () -> "unknown poll mode '" + s + "'; use back-off, spin or block, or a comma list of them");
    }

    /** {@code --poll}'s comma list, in order, each mode once: {@code back-off,spin,block}. */
    static List<PollMode> parseList(String s) {
        List<PollMode> list = new ArrayList<>();
        for (String part : s.split(",")) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            if (p.isEmpty()) {
                continue;
            }
            PollMode m = parse(p);
            if (!list.contains(m)) {
                list.add(m);
            }
        }
        if (list.isEmpty()) {
            throw new UsageException("--poll is empty; use back-off, spin or block, or a comma list of them");
        }
        return list;
    }
}
