package io.reactorrdma.perf.doctor.checks;

/** How a check came out: fine, worth fixing, or in the way of a provider. */
public enum Status {
    /** Found as a provider needs it. */
    OK,
    /**
     * Works, but slower, less safe or unverified than it should be; or keeps one provider from running on a host set
     * up for another (a JDK below 22: ffm needs 22, disni runs). The line says what to do.
     */
    WARN,
    /** Missing or wrong; the providers it blocks cannot run until it is fixed. */
    FAIL
}
