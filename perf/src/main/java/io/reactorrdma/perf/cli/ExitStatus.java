package io.reactorrdma.perf.cli;

/** The exit statuses of every command of the CLI ({@code perf}, {@code soak}, {@code allocator-report}). */
public final class ExitStatus {

    /** Everything asked for ran. */
    public static final int OK = 0;
    /** A transport, a check or a run failed. */
    public static final int FAILED = 1;
    /** Bad command line. */
    public static final int USAGE = 2;

    private ExitStatus() {
    }
}
