package io.reactorrdma.tools.cli;

/** The exit statuses of every command line ({@code perf} and its commands, {@code incast-sim}, the demo). */
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
