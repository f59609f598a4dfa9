package io.reactorrdma.perf.cli;

import io.reactorrdma.rsocket.shard.ShardClient;
import io.reactorrdma.tools.cli.PngFile;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;

/**
 * A scenario run's command line as picocli reads it: {@code <scenario> [options]}, each value checked by its converter
 * ({@link PerfConverters}); an option not given stays null. {@link PerfOptions#from} checks them together.
 */
public final class PerfArguments {

    @Parameters(index = "0", arity = "0..1", paramLabel = "<scenario>", converter = PerfConverters.Scenarios.class, hidden = true,
            description = "send-lat, write-bw, echo, rsocket-rr, rsocket-stream or fanout (above)")
    Scenario scenario;

    @Option(names = "--transports", paramLabel = "LIST", order = 1, converter = PerfConverters.Transports.class, description = {
            "comma list of:",
            "  rdma-shm       soft RDMA provider over /dev/shm; the peer is a forked process",
            "  rdma-loopback  soft RDMA provider, both ends in this JVM (peer on a thread)",
            "                 (send-lat, write-bw: --provider ffm|disni, both through this host's device)",
            "  shm-floor      send-lat floor: two processes ping-pong a counter in a mapped file",
            "                 under /dev/shm (always spins)",
            "  memcpy         write-bw floor: one thread copying --size bytes between direct buffers",
            "  tcp            echo: Reactor Netty TcpServer/TcpClient on 127.0.0.1, 4-byte length",
            "                 prefix per message; rsocket-*: RSocket's TcpClientTransport/TcpServerTransport;",
            "                 the server is a forked process (--poll does not apply)",
            "  local          rsocket-*: RSocket's in-JVM Local transport, the floor of RSocket's own",
            "                 overhead (--poll does not apply)",
            "  rdma-disni     RDMA hardware (RoCE/InfiniBand) through DiSNI; the peer runs on the host",
            "                 given by --peer, started there by hand (serve below). Only when asked for;",
            "                 send-lat and write-bw only (serve has no echo or rsocket peer).",
            "  rdma-ffm       as rdma-disni, through the ffm provider (JDK 22+, rdma-core through FFM;",
            "                 java --enable-native-access=ALL-UNNAMED; peer: serve --provider ffm)",
            "  ucx            echo, rsocket-stream: UCX's ucx_perftest (Debian: ucx-utils), a server",
            "                 and a client process with UCX_TLS=sm,self; tag_lat (round trip = 2 x",
            "                 the one-way latency it prints; p99 from a second run with -R 99, both",
            "                 of its last 2048 round trips) or tag_bw; no p99.9 or CPU figures.",
            "                 Only when asked for; skipped with a note where ucx_perftest is missing.",
            "default: all that apply (send-lat: rdma-shm,rdma-loopback,shm-floor;",
            "write-bw: rdma-shm,rdma-loopback,memcpy; echo: rdma-shm,rdma-loopback,tcp;",
            "rsocket-rr, rsocket-stream: rdma-shm,rdma-loopback,tcp,local; fanout: rdma-shm,tcp),",
            "rdma-disni, rdma-ffm and ucx only when named. Ones that do not apply are skipped with a note."})
    List<Transport> transports;

    @Option(names = "--size", paramLabel = "BYTES", order = 2, converter = PerfConverters.Size.class,
            description = "message size; suffixes k, m, g are binary (1m = 1048576). 1 byte .. 1g (not fanout)")
    Integer size;

    @Option(names = "--duration", paramLabel = "SECS", order = 3, converter = PerfConverters.Duration.class,
            description = "measured phase, default 5 (fractions allowed)")
    Double duration;

    @Option(names = "--warmup", paramLabel = "SECS", order = 4, converter = PerfConverters.Warmup.class,
            description = "warm-up phase before it, default 2 (0 for none)")
    Double warmup;

    @Option(names = "--poll", paramLabel = "LIST", order = 5, converter = PerfConverters.Polls.class, description = {
            "comma list of back-off, spin, block; the scenario runs once per mode, in that order",
            "(--poll back-off,spin,block: the library's default first). echo, rsocket-*, fanout: both",
            "ends' RdmaResources idle BACK_OFF (back-off: the library's default, and this option's;",
            "spins some tens of µs while recent spins found work soon, then sleeps on completion",
            "notification; sleeps almost at once while they did not), BUSY_SPIN (spin) or",
            "BLOCK (block). send-lat, write-bw poll the completion queue by hand: spin (default)",
            "busy-polls, block arms it and sleeps until a completion event, both ends of send-lat",
            "and the write-bw client; back-off is refused there (it is the engine's policy)."})
    List<PollMode> polls;

    @Option(names = "--repeat", paramLabel = "N", order = 6, converter = PerfConverters.Repeat.class, description = {
            "run the transports interleaved N times per poll mode (t1,t2,t1,t2,...), 1.." + PerfOptions.MAX_REPEAT
                    + ", default " + PerfOptions.DEFAULT_REPEAT + ";",
            "with N > 1, after each mode's runs: each transport's median of every column over its",
            "runs, and the median over the runs of its per-run ratio to the baseline (same round)"})
    Integer repeat;

    @Option(names = "--baseline", paramLabel = "T", order = 7, converter = PerfConverters.OneTransport.class, description = {
            "the transport the ratios are against; default tcp (echo, rsocket-*, fanout), shm-floor",
            "(send-lat), memcpy (write-bw) when it runs, else the first transport that runs"})
    Transport baseline;

    @Option(names = "--connections", paramLabel = "N", order = 8, converter = PerfConverters.Connections.class, description = {
            "echo, rsocket-*: N concurrent connections, each its own closed loop (or stream); fanout:",
            "N concurrent callers, each a closed loop of fan-outs;",
            "default 1, at most " + PerfOptions.MAX_CONNECTIONS})
    Integer connections;

    @Option(names = "--reply", paramLabel = "echo|own", order = 8, converter = PerfConverters.Replies.class, description = {
            "echo: what the server answers with: echo (default), the buffer the message arrived in,",
            "zero-copy; own, a buffer of its own with the same bytes, so that each side sends from",
            "one buffer and receives into another, as ucx_perftest's tag_lat (the like-for-like",
            "comparison with the ucx transport)"})
    EchoReply reply;

    @Option(names = "--shards", paramLabel = "N", order = 9, converter = PerfConverters.Shards.class,
            description = "fanout: shards each request goes to, default " + PerfOptions.DEFAULT_SHARDS + ", at most "
                    + PerfOptions.MAX_SHARDS)
    Integer shards;

    @Option(names = "--replicas", paramLabel = "N", order = 10, converter = PerfConverters.Replicas.class,
            description = "fanout: replicas per shard (= server JVMs), default " + PerfOptions.DEFAULT_REPLICAS + ", at most "
                    + PerfOptions.MAX_REPLICAS)
    Integer replicas;

    @Option(names = "--slow-replica", paramLabel = "MS", order = 11, converter = PerfConverters.SlowReplica.class,
            description = "fanout: replica 0 of shard 0 holds each answer MS milliseconds (default: none)")
    Integer slowReplicaMillis;

    @Option(names = "--client", paramLabel = "shard|plain", order = 12, converter = PerfConverters.Clients.class, description = {
            "fanout: shard (default): the recovery layer's ShardClient per shard + FanOut,",
            "prints hedges sent/won and the extra-request fraction; plain: RSocket's",
            "LoadbalanceRSocketClient per shard (round robin; no timeouts, retries or hedging)"})
    FanoutClient client;

    /** {@code on} or {@code off} (a string: picocli reads a boolean option's value itself). */
    @Option(names = "--hedging", paramLabel = "on|off", order = 13, converter = PerfConverters.Hedging.class,
            description = "fanout, --client shard: hedge slow sub-requests (default on)")
    String hedging;

    @Option(names = "--hedge-quantile", paramLabel = "Q", order = 14, converter = PerfConverters.HedgeQuantile.class, description = {
            "fanout, hedging on: hedge a sub-request once it outlasts the shard's Q quantile",
            "of latency, 0 < Q < 1 (default " + ShardClient.DEFAULT_HEDGE_QUANTILE + "; hedges stay capped at 5 %% of calls)"})
    Double hedgeQuantile;

    @Option(names = "--peer", paramLabel = "HOST[:PORT]", order = 15, description = {
            "rdma-disni's and rdma-ffm's peer: the RDMA interface address of a host running",
            "  java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -Djava.library.path=/usr/local/lib \\",
            "    -jar reactor-rdma-perf.jar serve <scenario> --host <its RDMA IPv4> [--size BYTES] [--poll MODE]",
            "(disni), or on JDK 22+ java --enable-native-access=ALL-UNNAMED -jar reactor-rdma-perf.jar",
            "serve <scenario> --provider ffm --host ... (ffm); one run per start; same --size on both",
            "sides; default port " + PerfOptions.DEFAULT_PEER_PORT})
    String peer;

    @Option(names = "--provider", paramLabel = "NAME", order = 16, description = {
            "send-lat, write-bw: the verbs provider of rdma-loopback's two in-JVM ends: loopback (the",
            "default, soft), shm, or ffm / disni for both ends through this host's RDMA device (one",
            "host, no peer to start). ffm over its test emulation of rdma-core runs too; its figures",
            "measure the emulation, not RDMA"})
    String provider;

    @Option(names = "--chart", paramLabel = "FILE.png", order = 17, converter = PngFile.class, description = {
            "after the run, draw the latency distributions of every transport measured (one line",
            "each, round trip against percentile, log scales) into FILE.png; with --repeat, each",
            "transport's median run (the run whose p50 is the median p50; of an even count the lower);",
            "with several poll modes one file per mode, FILE-back-off.png, FILE-spin.png, ..."})
    Path chart;

    @Option(names = "--csv", order = 18, description = {
            "standard output holds only CSV, one line per run (and per median); logs and a",
            "readable copy of the table go to standard error"})
    boolean csv;
}
