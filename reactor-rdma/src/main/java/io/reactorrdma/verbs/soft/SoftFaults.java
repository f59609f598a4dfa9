package io.reactorrdma.verbs.soft;

import java.util.Objects;

/**
 * Faults the soft provider injects on purpose, so that tests reproduce failures without timing
 * luck (docs/SOFT-PROVIDER.md, "Fault injection"). Immutable; {@link #none()} injects nothing, and
 * each {@code with…} returns a copy with one more fault. Set through {@link SoftConfig#faults(SoftFaults)}.
 * A context without faults pays one null check per request.
 *
 * <p>Faults whose timing a test steers at run time are handles ({@link PeerFreeze},
 * {@link CompletionFault}): the value object holds the handle, the test flips it.
 */
public final class SoftFaults {

    private static final SoftFaults NONE = new SoftFaults(null, null);

    private final PeerFreeze freeze;
    private final CompletionFault completions;

    private SoftFaults(PeerFreeze freeze, CompletionFault completions) {
        this.freeze = freeze;
        this.completions = completions;
    }

    /** No faults. */
    public static SoftFaults none() {
        return NONE;
    }

    /**
     * Freezes this context's posters (it plays the frozen peer): while {@code freeze} is armed, a
     * request of the armed opcode stops after its checks, just before its data is copied into the
     * peer's memory, until thawed.
     */
    public SoftFaults withPeerFreeze(PeerFreeze freeze) {
        return new SoftFaults(Objects.requireNonNull(freeze, "freeze"), completions);
    }

    /** Delays or drops the completions of one queue pair of this context, as {@code fault} says. */
    public SoftFaults withCompletionFault(CompletionFault fault) {
        return new SoftFaults(freeze, Objects.requireNonNull(fault, "fault"));
    }

    /** The peer freeze, or null. */
    public PeerFreeze peerFreeze() {
        return freeze;
    }

    /** The completion fault, or null. */
    public CompletionFault completionFault() {
        return completions;
    }

    boolean isNone() {
        return freeze == null && completions == null;
    }

    @Override
    public String toString() {
        return isNone() ? "SoftFaults{none}" : "SoftFaults{" + (freeze != null ? freeze : "") + (completions != null ? " " + completions : "") + "}";
    }
}
