package io.reactorrdma.perf.cli;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Where the bytes go. */
public enum Transport {
    /** The soft RDMA provider over /dev/shm, the peer in a forked process. */
    RDMA_SHM("rdma-shm"),
    /** The soft RDMA provider within this JVM: two loopback contexts, the peer on a thread. */
    RDMA_LOOPBACK("rdma-loopback"),
    /**
     * RDMA hardware through the disni provider; the peer runs on the host given by {@code --peer},
     * started there by hand ({@code serve}). Applies wherever rdma-shm does; runs only when asked for.
     */
    RDMA_DISNI("rdma-disni"),
    /** RDMA hardware through the ffm provider (JDK 22+, rdma-core through FFM); otherwise as {@link #RDMA_DISNI}. */
    RDMA_FFM("rdma-ffm"),
    /** Floor: two processes ping-ponging a counter in a mapped file (send-lat only). */
    SHM_FLOOR("shm-floor"),
    /** Floor: one thread copying between direct buffers (write-bw only). */
    MEMCPY("memcpy"),
    /**
     * TCP on 127.0.0.1, the server in a forked process: echo uses Reactor Netty's TcpServer/TcpClient with
     * a 4-byte length-field frame codec; the RSocket scenarios RSocket's TcpServerTransport/TcpClientTransport.
     */
    TCP("tcp"),
    /** RSocket's Local transport: both ends in this JVM, no I/O — the floor of RSocket's own overhead (RSocket scenarios only). */
    LOCAL("local"),
    /**
     * UCX's own benchmark, Debian's {@code ucx_perftest} (package ucx-utils), as two processes over shared memory
     * ({@code UCX_TLS=sm,self}): a reference outside the JVM for echo (tag_lat) and rsocket-stream (tag_bw).
     * Runs only when asked for, and is skipped with a note where {@code ucx_perftest} is not on the PATH.
     */
    UCX("ucx");

    private final String id;

    Transport(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** Whether this is RDMA hardware with the peer on another host ({@code serve}): rdma-disni or rdma-ffm. */
    public boolean onRemoteHardware() {
        return this == RDMA_DISNI || this == RDMA_FFM;
    }

    /** The verbs provider a remote-hardware transport opens. */
    public String hardwareProvider() {
        if (!onRemoteHardware()) {
            throw new IllegalStateException(id + " is not a hardware transport");
        }
        return this == RDMA_FFM ? "ffm" : "disni";
    }

    public static Transport parse(String s) {
        return CliIds.parse(values(), Transport::id, s, () -> "unknown transport '" + s + "'; use a comma list of " + ids());
    }

    static String ids() {
        return Arrays.stream(values()).map(Transport::id).collect(Collectors.joining(", "));
    }
}
