package io.reactorrdma.perf.doctor.checks;

/** How a check came out: fine, worth fixing, or in the way of a provider. */
public enum Status {
    /** Found as a provider needs it. */
    OK,
    /** Works, but slower, less safe or unverified than it should be; the line says what to do. */
    WARN,
    /** Missing or wrong; the providers it blocks cannot run until it is fixed. */
    FAIL
}
