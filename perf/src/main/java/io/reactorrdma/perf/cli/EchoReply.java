package io.reactorrdma.perf.cli;

/**
 * echo's {@code --reply}: what the server answers a message with. The two differ in where the bytes live, which
 * matters for large messages between two processes on one host: a forwarded buffer is read by the client's core
 * and then written again by the server's next receive, so its cache lines cross between the cores twice per round
 * trip; a reply of the server's own is only ever read by the client.
 */
public enum EchoReply {
    /** The buffer the message arrived in goes back, zero-copy: the README's echo, {@code out.send(in.receive())} (the default). */
    ECHO("echo"),
    /**
     * A message of the server's own with the same bytes (copied from the connection's first message of that size,
     * then sent again and again): each side sends from one buffer and receives into another, as
     * {@code ucx_perftest}'s {@code tag_lat} does.
     */
    OWN("own");

    private final String id;

    EchoReply(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static EchoReply parse(String s) {
        return CliIds.parse(values(), EchoReply::id, s, () -> "unknown --reply '" + s + "'; use echo (the buffer the message "
                + "arrived in goes back) or own (the server answers with a message of its own, as ucx_perftest's tag_lat)");
    }
}
