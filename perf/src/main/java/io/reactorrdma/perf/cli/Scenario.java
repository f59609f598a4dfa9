package io.reactorrdma.perf.cli;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** What is measured. */
public enum Scenario {
    /** SEND/RECV ping-pong: round-trip latency. */
    SEND_LAT("send-lat", 8, List.of(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.SHM_FLOOR)),
    /** RDMA WRITE with a window of outstanding requests: bandwidth. */
    WRITE_BW("write-bw", 1 << 20, List.of(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.MEMCPY)),
    /** Closed-loop echo through the public Reactor API (RDMA) or Reactor Netty (TCP): round trip and throughput. */
    ECHO("echo", 64, List.of(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.TCP)),
    /** RSocket request-response, a closed loop per connection: round trip and CPU per request. */
    RSOCKET_RR("rsocket-rr", 64, List.of(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.TCP, Transport.LOCAL)),
    /** RSocket request-stream of --size payloads, one stream per connection: throughput. */
    RSOCKET_STREAM("rsocket-stream", 1 << 20, List.of(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.TCP, Transport.LOCAL)),
    /** One client fans each request out to --shards replicated shard servers in forked JVMs; sizes from a mix (no --size). */
    FANOUT("fanout", 0, List.of(Transport.RDMA_SHM, Transport.TCP));

    private final String id;
    private final int defaultSize;
    private final List<Transport> transports;

    Scenario(String id, int defaultSize, List<Transport> transports) {
        this.id = id;
        this.defaultSize = defaultSize;
        this.transports = transports;
    }

    /** The name on the command line and in the CSV. */
    public String id() {
        return id;
    }

    int defaultSize() {
        return defaultSize;
    }

    /** The transports this scenario applies to, in the order they run by default. */
    public List<Transport> transports() {
        return transports;
    }

    public boolean appliesTo(Transport t) {
        // the hardware transports run the same client as rdma-shm, against a peer on another host
        return transports.contains(t) || (t.onRemoteHardware() && transports.contains(Transport.RDMA_SHM))
                || (t == Transport.UCX && runsOnUcxPerftest());
    }

    /**
     * Whether ucx_perftest has a test of this scenario's shape (transport ucx, only when asked for): echo's round trips
     * (tag_lat) and rsocket-stream's bandwidth (tag_bw).
     */
    boolean runsOnUcxPerftest() {
        return this == ECHO || this == RSOCKET_STREAM;
    }

    /** Whether {@code serve} can start this scenario's peer on another host, i.e. whether it runs on rdma-disni and rdma-ffm. */
    boolean hasHardwarePeer() {
        return this == SEND_LAT || this == WRITE_BW;
    }

    /**
     * The transport that {@code --repeat}'s ratios are taken against unless {@code --baseline} names another: tcp where
     * the scenario runs on it, else its floor (send-lat: shm-floor; write-bw: memcpy).
     */
    public Transport baseline() {
        switch (this) {
            case SEND_LAT:
                return Transport.SHM_FLOOR;
            case WRITE_BW:
                return Transport.MEMCPY;
            default:
                return Transport.TCP;
        }
    }

    /**
     * Whether the library's engine ({@code RdmaResources}' thread domains) carries this scenario's RDMA I/O, so that
     * {@code --poll back-off}, the library's default idle policy, applies; send-lat and write-bw poll by hand.
     */
    public boolean runsOnEngine() {
        return this == ECHO || this == RSOCKET_RR || this == RSOCKET_STREAM || this == FANOUT;
    }

    /** {@code --poll} unless given: the library's default (back-off) where the engine runs the I/O, else spin. */
    PollMode defaultPoll() {
        return runsOnEngine() ? PollMode.BACK_OFF : PollMode.SPIN;
    }

    /** Whether --connections applies: the closed-loop scenarios. */
    boolean takesConnections() {
        return this == ECHO || this == RSOCKET_RR || this == RSOCKET_STREAM || this == FANOUT;
    }

    /** Whether --size applies: all but fanout, whose sizes come from its mix. */
    public boolean takesSize() {
        return this != FANOUT;
    }

    static Scenario parse(String s) {
        return CliIds.parse(values(), Scenario::id, s,
                () -> "unknown scenario '" + s + "'; use one of " + ids() + " (or 'jmh', or --help)");
    }

    static String ids() {
        return Arrays.stream(values()).map(Scenario::id).collect(Collectors.joining(", "));
    }
}
