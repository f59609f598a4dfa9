package io.reactorrdma.perf.cli;

import io.reactorrdma.rsocket.shard.ShardClient;
import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The parsed command line of a scenario run ({@link PerfArguments} as picocli read it, checked together). Immutable. */
public final class PerfOptions {

    /** Largest message and region: the soft provider's limit (1 GiB). */
    public static final int MAX_SIZE = 1 << 30;
    static final double MAX_SECONDS = 3600;
    public static final int MAX_CONNECTIONS = 256;
    /** fanout: the most shards, and the most replicas per shard (each replica set is a forked JVM). */
    public static final int MAX_SHARDS = 64;
    public static final int MAX_REPLICAS = 4;
    /** fanout's --shards and --replicas unless given. */
    public static final int DEFAULT_SHARDS = 8;
    public static final int DEFAULT_REPLICAS = 2;
    /** {@code --repeat}: rounds of the transports unless given, and the most allowed. */
    public static final int DEFAULT_REPEAT = 1;
    public static final int MAX_REPEAT = 50;

    public final Scenario scenario;
    /** The transports asked for, in order; those that do not apply to the scenario are dropped by the runner. */
    public final List<Transport> transports;
    /** Whether --transports was given (otherwise: all that apply). */
    final boolean transportsExplicit;
    public final int size;
    public final double durationSeconds;
    public final double warmupSeconds;
    /** The poll mode the runners use: the first of {@link #polls}, or the one {@link #withPoll} set. */
    public final PollMode poll;
    /**
     * {@code --poll}'s modes in order; the scenario runs once per mode. Default: back-off (the library's idle policy)
     * where the engine runs the I/O, spin for send-lat and write-bw.
     */
    public final List<PollMode> polls;
    /** {@code --repeat}: how many rounds of the transports (t1, t2, t1, t2, ...) each poll mode runs; 1..{@link #MAX_REPEAT}. */
    public final int repeat;
    /**
     * The transport the per-run ratios are taken against: {@code --baseline}, else the scenario's
     * ({@link Scenario#baseline()}) when it runs, else the first transport that applies; null when none applies.
     */
    public final Transport baseline;
    public final boolean csv;
    /** Concurrent connections, each with its own closed loop (echo) or stream (rsocket-rr, rsocket-stream). */
    public final int connections;
    /** echo: what the server answers with ({@code --reply}, default {@link EchoReply#ECHO}). */
    public final EchoReply reply;

    /** fanout: the shards each request goes to, the replicas of each, and --slow-replica's delay (0: none). */
    public final int shards;
    public final int replicas;
    public final long slowReplicaMillis;
    /** fanout: the shard client ({@code --client}, default shard) and whether it hedges ({@code --hedging}, default on). */
    public final FanoutClient fanoutClient;
    public final boolean hedging;
    /** fanout, shard client: the latency quantile after which a sub-request is hedged ({@code --hedge-quantile}). */
    public final double hedgeQuantile;

    /** --chart: where to draw the latency distributions of the run (PNG), or null. */
    public final Path chart;

    /** rdma-disni's peer, started by hand with {@code serve}: host, and port (default {@link #DEFAULT_PEER_PORT}); null when not given. */
    public final String peerHost;
    public final int peerPort;
    /**
     * send-lat, write-bw: the provider of rdma-loopback's two in-JVM ends ({@code --provider}; default the soft
     * {@value #LOOPBACK_PROVIDER}; ffm or disni put both through this host's RDMA device).
     */
    public final String loopbackProvider;
    public static final String LOOPBACK_PROVIDER = "loopback";
    /** The port {@code serve} listens on unless told otherwise (perftest's). */
    public static final int DEFAULT_PEER_PORT = 18515;

    private PerfOptions(Scenario scenario, List<Transport> transports, boolean transportsExplicit, int size,
                        double durationSeconds, double warmupSeconds, PollMode poll, List<PollMode> polls, int repeat,
                        Transport baseline, boolean csv, int connections, EchoReply reply,
                        String peerHost, int peerPort, Path chart, int shards, int replicas, long slowReplicaMillis,
                        FanoutClient fanoutClient, boolean hedging, double hedgeQuantile, String loopbackProvider) {
        this.scenario = scenario;
        this.transports = List.copyOf(transports);
        this.transportsExplicit = transportsExplicit;
        this.size = size;
        this.durationSeconds = durationSeconds;
        this.warmupSeconds = warmupSeconds;
        this.poll = poll;
        this.polls = List.copyOf(polls);
        this.repeat = repeat;
        this.baseline = baseline;
        this.csv = csv;
        this.connections = connections;
        this.reply = reply;
        this.peerHost = peerHost;
        this.peerPort = peerPort;
        this.chart = chart;
        this.shards = shards;
        this.replicas = replicas;
        this.slowReplicaMillis = slowReplicaMillis;
        this.fanoutClient = fanoutClient;
        this.hedging = hedging;
        this.hedgeQuantile = hedgeQuantile;
        this.loopbackProvider = loopbackProvider;
    }

    /** These options with the runners' poll mode set to {@code mode} (one of {@link #polls}'s rounds). */
    public PerfOptions withPoll(PollMode mode) {
        return new PerfOptions(scenario, transports, transportsExplicit, size, durationSeconds, warmupSeconds, mode, polls, repeat,
                baseline, csv, connections, reply, peerHost, peerPort, chart, shards, replicas, slowReplicaMillis, fanoutClient, hedging,
                hedgeQuantile, loopbackProvider);
    }

    /** The hedge quantile as a percentile's name: {@code p95}, {@code p99.9}. */
    public String hedgeQuantileLabel() {
        return "p" + BigDecimal.valueOf(hedgeQuantile).movePointRight(2).stripTrailingZeros().toPlainString();
    }

    public long durationNanos() {
        return (long) (durationSeconds * 1e9);
    }

    public long warmupNanos() {
        return (long) (warmupSeconds * 1e9);
    }

    /**
     * Parses {@code <scenario> [options]} with picocli ({@link PerfArguments}); options as {@code --name value} or
     * {@code --name=value}.
     *
     * @throws UsageException saying what is wrong
     */
    public static PerfOptions parse(String[] args) {
        PerfArguments a = new PerfArguments();
        try {
            CommandLines.of(a, System.out, System.err).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(CommandLines.message(e));
        }
        return from(a);
    }

    /**
     * The options of {@code a}, checked together, with the defaults for those not given.
     *
     * @throws UsageException saying what is wrong
     */
    public static PerfOptions from(PerfArguments a) {
        if (a.scenario == null) {
            throw new UsageException("no scenario given; use one of " + Scenario.ids() + " (or --help)");
        }
        Scenario scenario = a.scenario;
        String fanoutOnly = a.shards != null ? "--shards" : a.replicas != null ? "--replicas"
                : a.slowReplicaMillis != null ? "--slow-replica" : a.client != null ? "--client"
                : a.hedging != null ? "--hedging" : a.hedgeQuantile != null ? "--hedge-quantile" : null;
        if (fanoutOnly != null && scenario != Scenario.FANOUT) {
            throw new UsageException(fanoutOnly + " applies to fanout only");
        }
        if (a.size != null && !scenario.takesSize()) {
            throw new UsageException("--size does not apply to " + scenario.id() + ": its sizes come from a mix (see --help)");
        }
        if (a.connections != null && !scenario.takesConnections()) {
            throw new UsageException("--connections applies to echo, rsocket-rr, rsocket-stream and fanout only; " + scenario.id()
                    + " runs one connection");
        }
        if (a.reply != null && scenario != Scenario.ECHO) {
            throw new UsageException("--reply applies to echo only; " + scenario.id() + "'s server answers as its scenario says");
        }
        List<Transport> transports = a.transports;
        Integer size = a.size;
        double duration = a.duration != null ? a.duration : 5;
        double warmup = a.warmup != null ? a.warmup : 2;
        List<PollMode> polls = a.polls != null ? a.polls : List.of(scenario.defaultPoll());
        int repeat = a.repeat != null ? a.repeat : DEFAULT_REPEAT;
        Transport baseline = a.baseline;
        boolean csv = a.csv;
        int connections = a.connections != null ? a.connections : 1;
        String peer = a.peer != null ? a.peer.trim() : null;
        Path chart = a.chart;
        int shards = a.shards != null ? a.shards : DEFAULT_SHARDS;
        int replicas = a.replicas != null ? a.replicas : DEFAULT_REPLICAS;
        long slowMillis = a.slowReplicaMillis != null ? a.slowReplicaMillis : 0;
        FanoutClient fanoutClient = a.client != null ? a.client : FanoutClient.SHARD;
        Boolean hedging = a.hedging == null ? null : a.hedging.equals("on");
        Double hedgeQuantile = a.hedgeQuantile;
        if (fanoutClient == FanoutClient.PLAIN && Boolean.TRUE.equals(hedging)) {
            throw new UsageException("--hedging on needs --client shard: the plain client (RSocket's load balancer) does not hedge");
        }
        boolean hedges = fanoutClient == FanoutClient.SHARD && (hedging == null || hedging);
        if (hedgeQuantile != null && !hedges) {
            throw new UsageException("--hedge-quantile needs a client that hedges: --client shard with --hedging on (the default)");
        }
        if (polls.contains(PollMode.BACK_OFF) && !scenario.runsOnEngine()) {
            throw new UsageException("--poll back-off is the library's idle policy (RdmaResources' default, IdleStrategy.BACK_OFF) and "
                    + "applies to echo, rsocket-rr, rsocket-stream and fanout, whose I/O the engine runs; " + scenario.id()
                    + " polls its completion queues by hand: use --poll spin or block (or spin,block)");
        }
        boolean explicit = transports != null;
        List<Transport> run = explicit ? transports : scenario.transports();
        if (baseline != null && !(run.contains(baseline) && scenario.appliesTo(baseline))) {
            throw new UsageException("--baseline " + baseline.id() + " is not among the transports this " + scenario.id()
                    + " run measures; name one of them (--transports), or leave --baseline out for the scenario's ("
                    + scenario.baseline().id() + ")");
        }
        if (baseline == null) {
            baseline = run.contains(scenario.baseline()) ? scenario.baseline()
                    : run.stream().filter(scenario::appliesTo).findFirst().orElse(null);
        }
        for (Transport hw : explicit ? transports : List.<Transport>of()) {
            if (!hw.onRemoteHardware()) {
                continue;
            }
            String id = hw.id();
            if (!scenario.hasHardwarePeer()) {
                throw new UsageException(id + " is not available for " + scenario.id() + ": `serve` starts only send-lat and "
                        + "write-bw peers; measure " + scenario.id() + " over rdma-shm or rdma-loopback, or run send-lat or "
                        + "write-bw on " + id);
            }
            if (peer == null) {
                throw new UsageException(id + " needs --peer HOST[:PORT]: the RDMA address of a host running "
                        + "`java -jar reactor-rdma-perf.jar serve " + scenario.id() + " --provider " + hw.hardwareProvider()
                        + "` (see --help)");
            }
            if (repeat > 1 || polls.size() > 1) {
                throw new UsageException(id + "'s peer (serve) serves one run, then exits: measure " + id + " with --repeat 1 and "
                        + "one --poll mode, and start serve again on the peer host for each run");
            }
        }
        String loopbackProvider = a.provider != null ? a.provider.trim() : LOOPBACK_PROVIDER;
        if (a.provider != null && !scenario.hasHardwarePeer()) {
            throw new UsageException("--provider applies to send-lat and write-bw (rdma-loopback's provider); " + scenario.id()
                    + " runs on the soft providers");
        }
        if (a.provider != null && !run.contains(Transport.RDMA_LOOPBACK)) {
            throw new UsageException("--provider names the provider of rdma-loopback's two in-JVM ends, and this run has no "
                    + "rdma-loopback: add it to --transports (for a peer on another host use rdma-ffm or rdma-disni)");
        }
        if (loopbackProvider.isEmpty() || loopbackProvider.equals("auto")) {
            throw new UsageException("--provider needs a provider's name (loopback, shm, ffm or disni), not '" + a.provider + "'");
        }
        String peerHost = null;
        int peerPort = DEFAULT_PEER_PORT;
        if (peer != null) {
            int colon = peer.lastIndexOf(':');
            peerHost = colon > 0 ? peer.substring(0, colon) : peer;
            if (colon > 0) {
                try {
                    peerPort = Integer.parseInt(peer.substring(colon + 1));
                } catch (NumberFormatException e) {
                    throw new UsageException("bad --peer '" + peer + "': use HOST or HOST:PORT");
                }
            }
            if (peerHost.isEmpty() || peerPort < 1 || peerPort > 65535) {
                throw new UsageException("bad --peer '" + peer + "': use HOST or HOST:PORT (port 1..65535)");
            }
        }
        return new PerfOptions(scenario, run, explicit,
                size != null ? size : scenario.defaultSize(), duration, warmup, polls.get(0), polls, repeat, baseline, csv, connections,
                a.reply != null ? a.reply : EchoReply.ECHO,
                peerHost, peerPort, chart,
                shards, replicas, slowMillis, fanoutClient, hedges,
                hedgeQuantile != null ? hedgeQuantile : ShardClient.DEFAULT_HEDGE_QUANTILE, loopbackProvider);
    }

    /** A whole number 1..max ({@code --slow-replica}: milliseconds). */
    static int parseCount(String name, String s, int max) {
        int n;
        try {
            n = Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("bad " + name + " '" + s + "': use a whole number, 1.." + max);
        }
        if (n < 1 || n > max) {
            throw new UsageException("bad " + name + " '" + s + "': must be 1.." + max);
        }
        return n;
    }

    static int parseRepeat(String s) {
        int n;
        try {
            n = Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("bad --repeat '" + s + "': use a whole number of rounds, 1.." + MAX_REPEAT
                    + " (3 for the docs' tables)");
        }
        if (n < 1 || n > MAX_REPEAT) {
            throw new UsageException("bad --repeat '" + s + "': must be 1.." + MAX_REPEAT + " rounds (3 for the docs' tables)");
        }
        return n;
    }

    /** A quantile strictly between 0 and 1, e.g. 0.95. */
    static double parseQuantile(String name, String s) {
        double q;
        try {
            q = Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("bad " + name + " '" + s + "': use a fraction such as 0.95 (the shard's p95)");
        }
        if (!(q > 0.0 && q < 1.0)) {
            throw new UsageException("bad " + name + " '" + s + "': must lie strictly between 0 and 1, such as 0.95");
        }
        return q;
    }

    static boolean parseOnOff(String name, String s) {
        switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "on":
                return true;
            case "off":
                return false;
            default:
                throw new UsageException("bad " + name + " '" + s + "': use on or off");
        }
    }

    static int parseConnections(String s) {
        int n;
        try {
            n = Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("bad --connections '" + s + "': use a whole number, 1.." + MAX_CONNECTIONS);
        }
        if (n < 1 || n > MAX_CONNECTIONS) {
            throw new UsageException("bad --connections '" + s + "': must be 1.." + MAX_CONNECTIONS);
        }
        return n;
    }

    /** Bytes, with an optional binary suffix: {@code 64}, {@code 4k}, {@code 1m}, {@code 1g}. */
    public static int parseSize(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (v.endsWith("k")) {
            unit = 1L << 10;
        } else if (v.endsWith("m")) {
            unit = 1L << 20;
        } else if (v.endsWith("g")) {
            unit = 1L << 30;
        }
        if (unit != 1) {
            v = v.substring(0, v.length() - 1);
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException("bad --size '" + s + "': use a whole number of bytes, optionally with k, m or g (binary)");
        }
        if (n < 1 || n > MAX_SIZE / unit) {
            throw new UsageException("bad --size '" + s + "': must be 1.." + MAX_SIZE + " bytes (1 byte to 1g)");
        }
        return (int) (n * unit);
    }

    static double parseSeconds(String name, String s, boolean zeroAllowed) {
        double d;
        try {
            d = Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("bad " + name + " '" + s + "': use seconds, e.g. 5 or 0.5");
        }
        if (!(zeroAllowed ? d >= 0 : d > 0) || d > MAX_SECONDS || Double.isNaN(d)) {
            throw new UsageException("bad " + name + " '" + s + "': must be " + (zeroAllowed ? "0" : "above 0")
                    + " .. " + (int) MAX_SECONDS + " seconds");
        }
        return d;
    }

    static List<Transport> parseTransports(String s) {
        List<Transport> list = new ArrayList<>();
        for (String part : s.split(",")) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            if (p.isEmpty()) {
                continue;
            }
            Transport t = Transport.parse(p);
            if (!list.contains(t)) {
                list.add(t);
            }
        }
        if (list.isEmpty()) {
            throw new UsageException("--transports is empty; use a comma list of " + Transport.ids());
        }
        return list;
    }
}
