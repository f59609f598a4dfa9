package io.reactorrdma.verbs.soft.fault;

import io.reactorrdma.verbs.VerbsException;

import java.util.Objects;

/**
 * Faults the soft provider injects on purpose, so that tests reproduce failures without timing
 * luck (docs/SOFT-PROVIDER.md, "Fault injection"). Immutable; {@link #none()} injects nothing and
 * is what a context opened without faults has; each other method returns a copy with one more
 * fault. Give it to {@link io.reactorrdma.verbs.soft.SoftContext#openLoopback(io.reactorrdma.config.SoftConfig, SoftFaults)} or
 * {@link io.reactorrdma.verbs.soft.SoftContext#openShm(io.reactorrdma.config.SoftConfig, SoftFaults)}; it applies to every
 * context opened with it, each context counting on its own. A context without faults pays one null check
 * per request.
 *
 * <p>A failed registration throws {@link VerbsException} (as a full region table or exhausted
 * memlock would), names the fault, and leaves nothing registered. Faults whose timing a test
 * steers at run time are handles ({@link PeerFreeze}, {@link CompletionFault}): the value object
 * holds the handle, the test flips it ({@link ReadCompletionFault} too).
 */
public final class SoftFaults {

    private static final SoftFaults NONE = new SoftFaults(0, Long.MAX_VALUE, null, null, null);

    /** 1-based number of the registration that fails, 0 for none. */
    private final long failingRegistration;
    /** Registered bytes a context may hold; a registration that would exceed it fails. */
    private final long registrationBudget;
    private final PeerFreeze freeze;
    private final CompletionFault completions;
    private final ReadCompletionFault reads;

    private SoftFaults(long failingRegistration, long registrationBudget, PeerFreeze freeze, CompletionFault completions,
                       ReadCompletionFault reads) {
        this.failingRegistration = failingRegistration;
        this.registrationBudget = registrationBudget;
        this.freeze = freeze;
        this.completions = completions;
        this.reads = reads;
    }

    /** No faults. */
    public static SoftFaults none() {
        return NONE;
    }

    /**
     * The {@code n}-th registration of a context (1-based, counting every {@code allocate} and
     * {@code register} since the context opened) fails; those before and after succeed.
     */
    public SoftFaults failNthRegistration(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("the failing registration is counted from 1, got " + n);
        }
        return new SoftFaults(n, registrationBudget, freeze, completions, reads);
    }

    /**
     * A registration that would take the context's registered bytes (regions live now plus the
     * new one) above {@code bytes} fails, as an exhausted memlock limit or a full /dev/shm would.
     */
    public SoftFaults failRegistrationsAbove(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("the registration budget must be at least 0 bytes, got " + bytes);
        }
        return new SoftFaults(failingRegistration, bytes, freeze, completions, reads);
    }

    /**
     * Freezes this context's posters (it plays the frozen peer): while {@code freeze} is armed, a
     * request of the armed opcode stops after its checks, just before its data is copied into the
     * peer's memory, until thawed.
     */
    public SoftFaults withPeerFreeze(PeerFreeze freeze) {
        return new SoftFaults(failingRegistration, registrationBudget, Objects.requireNonNull(freeze, "freeze"), completions, reads);
    }

    /**
     * Delays or drops the completions of one queue pair of this context, as {@code fault} says:
     * send completions (kept aside in order) and receive completions (left where the peer wrote them).
     */
    public SoftFaults withCompletionFault(CompletionFault fault) {
        return new SoftFaults(failingRegistration, registrationBudget, freeze, Objects.requireNonNull(fault, "fault"), reads);
    }

    /**
     * Holds back the completions of this context's RDMA READs (and of the requests after them on the
     * same queue pair) while {@code fault} holds, as an RNIC's READs complete a round trip later.
     */
    public SoftFaults withReadCompletionFault(ReadCompletionFault fault) {
        return new SoftFaults(failingRegistration, registrationBudget, freeze, completions, Objects.requireNonNull(fault, "fault"));
    }

    /** The peer freeze, or null. */
    public PeerFreeze peerFreeze() {
        return freeze;
    }

    /** The completion fault, or null. */
    public CompletionFault completionFault() {
        return completions;
    }

    /** The read-completion fault, or null. */
    public ReadCompletionFault readCompletionFault() {
        return reads;
    }

    /**
     * Throws if the registration about to be made is to fail.
     *
     * @param number          1-based number of this registration in its context
     * @param registeredBytes bytes the context holds registered now
     * @param size            bytes of the new region
     */
    public void checkRegistration(long number, long registeredBytes, int size) {
        if (number == failingRegistration) {
            throw new VerbsException("injected fault (SoftFaults.failNthRegistration(" + number + ")): registration "
                    + number + " of " + size + " bytes failed");
        }
        if (registeredBytes + size > registrationBudget) {
            throw new VerbsException("injected fault (SoftFaults.failRegistrationsAbove(" + registrationBudget + ")): registering "
                    + size + " more bytes would hold " + (registeredBytes + size) + " registered bytes");
        }
    }

    boolean isNone() {
        return this == NONE || (failingRegistration == 0 && registrationBudget == Long.MAX_VALUE && freeze == null
                && completions == null && reads == null);
    }

    @Override
    public String toString() {
        if (isNone()) {
            return "SoftFaults{none}";
        }
        StringBuilder b = new StringBuilder("SoftFaults{");
        if (failingRegistration > 0) {
            b.append("failNthRegistration=").append(failingRegistration).append(' ');
        }
        if (registrationBudget < Long.MAX_VALUE) {
            b.append("failRegistrationsAbove=").append(registrationBudget).append(' ');
        }
        if (freeze != null) {
            b.append(freeze).append(' ');
        }
        if (completions != null) {
            b.append(completions).append(' ');
        }
        if (reads != null) {
            b.append(reads);
        }
        return b.toString().trim() + "}";
    }
}
