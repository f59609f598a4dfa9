package io.reactorrdma.incast;

/**
 * The real engine's constants and limits the simulated senders follow, copied from the engine's configuration
 * ({@code EngineConfig} in the reactor-rdma module: its {@code DEFAULT_*} constants and the minimums its constructor
 * enforces), so that the simulator needs only the backpressure module. perf's {@code IncastEngineDefaultsTest} fails
 * when the two disagree: change them together.
 */
public final class EngineDefaults {

    /** {@code EngineConfig.DEFAULT_SEND_QUEUE_DEPTH}: the send-queue depth, the work-request chain's length. */
    public static final int SEND_QUEUE_DEPTH = 32;
    /** {@code EngineConfig.DEFAULT_FRAGMENT_SIZE}: the rendezvous WRITE fragment size. */
    public static final int FRAGMENT_SIZE = 64 * 1024;
    /** {@code EngineConfig.DEFAULT_SEND_WINDOW_BYTES}: the engine's default send window. */
    public static final long SEND_WINDOW_BYTES = 4L * 1024 * 1024;
    /** {@code EngineConfig.DEFAULT_MAX_MESSAGE_SIZE}: the largest message the engine sends. */
    public static final int MAX_MESSAGE_SIZE = 16 * 1024 * 1024;
    /** The smallest send-queue depth the engine accepts. */
    public static final int MIN_SEND_QUEUE_DEPTH = 4;
    /** The smallest fragment size the engine accepts. */
    public static final int MIN_FRAGMENT_SIZE = 4096;

    private EngineDefaults() {
    }

    /**
     * Checks a sender's send-queue depth and fragment size as the engine's configuration does, with its messages
     * (any send window of at least 1 byte is one the engine accepts).
     *
     * @throws IllegalArgumentException naming the value the engine would refuse
     */
    public static void check(int sendQueueDepth, int fragmentSize) {
        atLeast("sendQueueDepth", sendQueueDepth, MIN_SEND_QUEUE_DEPTH);
        atLeast("fragmentSize", fragmentSize, MIN_FRAGMENT_SIZE);
    }

    private static void atLeast(String name, int v, int min) {
        if (v < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", got " + v);
        }
    }
}
