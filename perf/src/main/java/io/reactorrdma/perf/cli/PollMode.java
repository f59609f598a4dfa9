package io.reactorrdma.perf.cli;

/** How a side waits for completions. */
public enum PollMode {
    /** Busy-poll the completion queue. */
    SPIN("spin"),
    /** Arm the queue and sleep until a completion event (requestNotification / poll / awaitNotification). */
    BLOCK("block");

    private final String id;

    PollMode(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static PollMode parse(String s) {
        for (PollMode m : values()) {
            if (m.id.equals(s)) {
                return m;
            }
        }
        throw new UsageException("unknown poll mode '" + s + "'; use spin or block");
    }
}
