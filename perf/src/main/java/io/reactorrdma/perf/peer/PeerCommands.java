package io.reactorrdma.perf.peer;

import java.nio.charset.StandardCharsets;

/**
 * What a {@link ForkedPeer} and the forked JVM agree on: the class the child runs and the command lines
 * its standard input takes. The class is named, not referenced: the peer's main sits above every
 * scenario's server end, which this package must not see.
 */
public final class PeerCommands {

    /** The forked JVM's main class ({@code io.reactorrdma.perf.PeerMain}; a test holds the two equal). */
    public static final String MAIN_CLASS = "io.reactorrdma.perf.PeerMain";
    /** Asks for a {@code CPU} line: this process's CPU nanoseconds. */
    public static final String MARK = "mark";
    /** Stops the server end (which may then report) without the exit that closing standard input brings. */
    public static final String STOP = "stop";
    /** Starts the server end of a peer that waits on standby (a soak server started ahead of need). */
    public static final String START = "start";

    private PeerCommands() {
    }

    /** One command as the line written to the peer's standard input. */
    static byte[] line(String command) {
        return (command + "\n").getBytes(StandardCharsets.US_ASCII);
    }
}
