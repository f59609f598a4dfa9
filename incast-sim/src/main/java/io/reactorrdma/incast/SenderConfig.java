package io.reactorrdma.incast;

/**
 * The sender's engine per QP ({@link SenderEngines}): the send window, the work-request chain depth and the fragment
 * size. The defaults are the real engine's constants ({@link EngineDefaults}), and every value is checked by the real
 * engine's own rules ({@link EngineDefaults#check}), so a value the engine would refuse is refused here with the
 * engine's message.
 *
 * @param windowBytes   the per-engine send window W: bytes posted and not yet completed, enforced by the project's
 *                      {@code ByteWindow}; {@value #WINDOW_OFF} turns it off (default off). The engine's own default,
 *                      {@link EngineDefaults#SEND_WINDOW_BYTES} (4 MiB), is at least chain depth × fragment size
 *                      (2 MiB at the defaults), so it never binds: off behaves the same
 * @param chainDepth    work requests posted and not completed per engine (default
 *                      {@link EngineDefaults#SEND_QUEUE_DEPTH}, the send-queue depth: 32)
 * @param fragmentBytes the largest work request: a message is cut into fragments of at most this (default
 *                      {@link EngineDefaults#FRAGMENT_SIZE}: 64 KiB)
 */
public record SenderConfig(long windowBytes, int chainDepth, int fragmentBytes) {

    /** The value of {@code windowBytes} that turns the send window off: only the chain depth binds. */
    public static final long WINDOW_OFF = 0;
    /** Off: the arms without the window (PFC only, DCQCN + PFC). */
    public static final long DEFAULT_WINDOW_BYTES = WINDOW_OFF;
    /** The engine's send-queue depth, which is its work-request chain's length. */
    public static final int DEFAULT_CHAIN_DEPTH = EngineDefaults.SEND_QUEUE_DEPTH;
    /** The engine's rendezvous WRITE fragment size. */
    public static final int DEFAULT_FRAGMENT_BYTES = EngineDefaults.FRAGMENT_SIZE;

    /** Validates with the real engine's rules; the message names the parameter, its value and what is allowed. */
    public SenderConfig {
        if (windowBytes < 0) {
            throw new IllegalArgumentException("windowBytes " + windowBytes + ": use " + WINDOW_OFF
                    + " for no window or a window of at least 1 byte");
        }
        try {
            EngineDefaults.check(chainDepth, fragmentBytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sender config (window " + windowBytes + " B, chain depth " + chainDepth
                    + ", fragment " + fragmentBytes + " B) is one the engine refuses: " + e.getMessage(), e);
        }
    }

    /** The defaults: no window, the engine's chain depth and fragment size. */
    public static SenderConfig defaults() {
        return new SenderConfig(DEFAULT_WINDOW_BYTES, DEFAULT_CHAIN_DEPTH, DEFAULT_FRAGMENT_BYTES);
    }

    /** This config with a send window of {@code bytes}, or none with {@link #WINDOW_OFF}. */
    public SenderConfig withWindowBytes(long bytes) {
        return new SenderConfig(bytes, chainDepth, fragmentBytes);
    }

    /** Whether the send window is on. */
    public boolean windowEnabled() {
        return windowBytes != WINDOW_OFF;
    }
}
