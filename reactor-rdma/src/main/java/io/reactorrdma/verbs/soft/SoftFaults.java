package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.VerbsException;

/**
 * Faults the soft provider injects on purpose, for tests that must reproduce a failure without
 * timing luck (docs/SOFT-PROVIDER.md, "Fault injection"). Immutable; each method returns a copy
 * with one more fault; {@link #none()} injects nothing and is what {@link SoftConfig#defaults()}
 * carries. Set it with {@link SoftConfig#withFaults}; it applies to every context opened with that
 * configuration, each context counting on its own.
 *
 * <p>A failed registration throws {@link VerbsException} (as a full region table or exhausted
 * memlock would), names the fault, and leaves nothing registered.
 */
public final class SoftFaults {

    private static final SoftFaults NONE = new SoftFaults(0, Long.MAX_VALUE);

    /** 1-based number of the registration that fails, 0 for none. */
    private final long failingRegistration;
    /** Registered bytes a context may hold; a registration that would exceed it fails. */
    private final long registrationBudget;

    private SoftFaults(long failingRegistration, long registrationBudget) {
        this.failingRegistration = failingRegistration;
        this.registrationBudget = registrationBudget;
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
        return new SoftFaults(n, registrationBudget);
    }

    /**
     * A registration that would take the context's registered bytes (regions live now plus the
     * new one) above {@code bytes} fails, as an exhausted memlock limit or a full /dev/shm would.
     */
    public SoftFaults failRegistrationsAbove(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("the registration budget must be at least 0 bytes, got " + bytes);
        }
        return new SoftFaults(failingRegistration, bytes);
    }

    /**
     * Throws if the registration about to be made is to fail.
     *
     * @param number          1-based number of this registration in its context
     * @param registeredBytes bytes the context holds registered now
     * @param size            bytes of the new region
     */
    void checkRegistration(long number, long registeredBytes, int size) {
        if (number == failingRegistration) {
            throw new VerbsException("injected fault (SoftFaults.failNthRegistration(" + number + ")): registration "
                    + number + " of " + size + " bytes failed");
        }
        if (registeredBytes + size > registrationBudget) {
            throw new VerbsException("injected fault (SoftFaults.failRegistrationsAbove(" + registrationBudget + ")): registering "
                    + size + " more bytes would hold " + (registeredBytes + size) + " registered bytes");
        }
    }

    @Override
    public String toString() {
        if (this == NONE) {
            return "SoftFaults{none}";
        }
        return "SoftFaults{" + (failingRegistration > 0 ? "failNthRegistration=" + failingRegistration + ", " : "")
                + (registrationBudget < Long.MAX_VALUE ? "failRegistrationsAbove=" + registrationBudget : "") + "}";
    }
}
