package io.reactorrdma.perf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The parsed command line of a scenario run. Immutable. */
final class PerfOptions {

    /** Largest message and region: the soft provider's limit (1 GiB). */
    static final int MAX_SIZE = 1 << 30;
    static final double MAX_SECONDS = 3600;
    static final int MAX_CONNECTIONS = 256;

    final Scenario scenario;
    /** The transports asked for, in order; those that do not apply to the scenario are dropped by the runner. */
    final List<Transport> transports;
    /** Whether --transports was given (otherwise: all that apply). */
    final boolean transportsExplicit;
    final int size;
    final double durationSeconds;
    final double warmupSeconds;
    final PollMode poll;
    final boolean csv;
    /** Concurrent connections, each with its own closed loop (echo) or stream (rsocket-rr, rsocket-stream). */
    final int connections;

    /** --chart: where to draw the latency distributions of the run (PNG), or null. */
    final Path chart;

    /** rdma-disni's peer, started by hand with {@code serve}: host, and port (default {@link #DEFAULT_PEER_PORT}); null when not given. */
    final String peerHost;
    final int peerPort;
    /** The port {@code serve} listens on unless told otherwise (perftest's). */
    static final int DEFAULT_PEER_PORT = 18515;


    private PerfOptions(Scenario scenario, List<Transport> transports, boolean transportsExplicit, int size,
                        double durationSeconds, double warmupSeconds, PollMode poll, boolean csv, int connections,
                        String peerHost, int peerPort, Path chart) {
        this.scenario = scenario;
        this.transports = List.copyOf(transports);
        this.transportsExplicit = transportsExplicit;
        this.size = size;
        this.durationSeconds = durationSeconds;
        this.warmupSeconds = warmupSeconds;
        this.poll = poll;
        this.csv = csv;
        this.connections = connections;
        this.peerHost = peerHost;
        this.peerPort = peerPort;
        this.chart = chart;
    }

    long durationNanos() {
        return (long) (durationSeconds * 1e9);
    }

    long warmupNanos() {
        return (long) (warmupSeconds * 1e9);
    }

    /**
     * Parses {@code <scenario> [options]}; options as {@code --name value} or {@code --name=value}.
     *
     * @throws UsageException saying what is wrong
     */
    static PerfOptions parse(String[] args) {
        if (args.length == 0) {
            throw new UsageException("no scenario given; use one of " + Scenario.ids() + " (or --help)");
        }
        Scenario scenario = Scenario.parse(args[0]);
        List<Transport> transports = null;
        Integer size = null;
        double duration = 5;
        double warmup = 2;
        PollMode poll = PollMode.SPIN;
        boolean csv = false;
        int connections = 1;
        String peer = null;
        Path chart = null;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            switch (name) {
                case "--csv":
                    if (value != null) throw new UsageException("--csv takes no value");
                    csv = true;
                    continue;
                case "--size":
                case "--duration":
                case "--warmup":
                case "--poll":
                case "--transports":
                case "--connections":
                case "--peer":
                case "--chart":
                    break;
                default:
                    throw new UsageException("unknown option '" + arg + "'; see --help");
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException(name + " needs a value; see --help");
                }
                value = args[++i];
            }
            switch (name) {
                case "--size":
                    size = parseSize(value);
                    break;
                case "--duration":
                    duration = parseSeconds(name, value, false);
                    break;
                case "--warmup":
                    warmup = parseSeconds(name, value, true);
                    break;
                case "--poll":
                    poll = PollMode.parse(value.trim().toLowerCase(Locale.ROOT));
                    break;
                case "--connections":
                    connections = parseConnections(scenario, value);
                    break;
                case "--peer":
                    peer = value.trim();
                    break;
                case "--chart":
                    if (!value.toLowerCase(Locale.ROOT).endsWith(".png")) {
                        throw new UsageException("bad --chart '" + value + "': give a file name ending in .png");
                    }
                    chart = Path.of(value);
                    break;
                default:
                    transports = parseTransports(value);
                    break;
            }
        }
        boolean explicit = transports != null;
        if (explicit && transports.contains(Transport.RDMA_DISNI) && !scenario.hasHardwarePeer()) {
            throw new UsageException("rdma-disni is not available for " + scenario.id() + ": `serve` starts only send-lat and "
                    + "write-bw peers; measure " + scenario.id() + " over rdma-shm or rdma-loopback, or run send-lat or write-bw on rdma-disni");
        }
        if (explicit && transports.contains(Transport.RDMA_DISNI) && peer == null) {
            throw new UsageException("rdma-disni needs --peer HOST[:PORT]: the RDMA address of a host running "
                    + "`java -jar reactor-rdma-perf.jar serve " + scenario.id() + "` (see --help)");
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
        return new PerfOptions(scenario, explicit ? transports : scenario.transports(), explicit,
                size != null ? size : scenario.defaultSize(), duration, warmup, poll, csv, connections, peerHost, peerPort, chart);
    }

    private static int parseConnections(Scenario scenario, String s) {
        if (!scenario.takesConnections()) {
            throw new UsageException("--connections applies to echo, rsocket-rr and rsocket-stream only; " + scenario.id() + " runs one connection");
        }
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
    static int parseSize(String s) {
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

    private static double parseSeconds(String name, String s, boolean zeroAllowed) {
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

    private static List<Transport> parseTransports(String s) {
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

    static String help() {
        return String.join(System.lineSeparator(),
                "reactor-rdma perf: perftest-style benchmarks of the verbs layer, echo through the Reactor API, and RSocket",
                "",
                "usage: java -jar reactor-rdma-perf.jar <scenario> [options]",
                "       java -jar reactor-rdma-perf.jar jmh [JMH options]      (JMH micro-benchmarks; jmh -h for JMH's help)",
                "       java -jar reactor-rdma-perf.jar allocator-report [--quick] (allocator benchmark matrix; --help for its options)",
                "       java -jar reactor-rdma-perf.jar soak [--duration 10m] [--connections 16] [--seed N] (fault soak over shm; soak --help)",
                "",
                "scenarios:",
                "  send-lat   SEND/RECV ping-pong; reports the round-trip time (not half of it). Default size 8 bytes.",
                "  write-bw   RDMA WRITE bandwidth: a window of up to 128 outstanding WRITEs into the peer's",
                "             REMOTE_WRITE region, every 16th signaled; the peer checks the data (CRC32) at the end.",
                "             Default size 1m. The peer is passive (it waits blocked; RDMA WRITE needs no peer CPU).",
                "  echo       closed-loop echo through the public API: each connection sends a --size message and waits",
                "             for its echo, then sends the next (driven from the receive callback, on the I/O thread).",
                "             RDMA: RdmaClient/RdmaServer, echo handler out.send(in.receive()); tcp: Reactor Netty.",
                "             Default size 64. Prints both RDMA engines' rdma.* meters for the measured phase.",
                "  rsocket-rr RSocket request-response, a closed loop per connection: the server answers with the request's",
                "             payload (PayloadDecoder.ZERO_COPY on both ends). Default size 64. Prints the RDMA engines' meters.",
                "  rsocket-stream  RSocket request-stream, one per connection: the server streams --size payloads as the",
                "             client's demand allows (" + StreamLoop.WINDOW + " ahead, topped up by half); reports MiB/s. Default size 1m.",
                "",
                "options:",
                "  --transports LIST  comma list of:",
                "                       rdma-shm       soft RDMA provider over /dev/shm; the peer is a forked process",
                "                       rdma-loopback  soft RDMA provider, both ends in this JVM (peer on a thread)",
                "                       shm-floor      send-lat floor: two processes ping-pong a counter in a mapped file",
                "                                      under /dev/shm (always spins)",
                "                       memcpy         write-bw floor: one thread copying --size bytes between direct buffers",
                "                       tcp            echo: Reactor Netty TcpServer/TcpClient on 127.0.0.1, 4-byte length",
                "                                      prefix per message; rsocket-*: RSocket's TcpClientTransport/TcpServerTransport;",
                "                                      the server is a forked process (--poll does not apply)",
                "                       local          rsocket-*: RSocket's in-JVM Local transport, the floor of RSocket's own",
                "                                      overhead (--poll does not apply)",
                "                       rdma-disni     RDMA hardware (RoCE/InfiniBand) through DiSNI; the peer runs on the host",
                "                                      given by --peer, started there by hand (serve below). Only when asked for;",
                "                                      send-lat and write-bw only (serve has no echo or rsocket peer).",
                "                     default: all that apply (send-lat: rdma-shm,rdma-loopback,shm-floor;",
                "                     write-bw: rdma-shm,rdma-loopback,memcpy; echo: rdma-shm,rdma-loopback,tcp;",
                "                     rsocket-rr, rsocket-stream: rdma-shm,rdma-loopback,tcp,local).",
                "                     Ones that do not apply are skipped with a note.",
                "  --size BYTES       message size; suffixes k, m, g are binary (1m = 1048576). 1 byte .. 1g",
                "  --duration SECS    measured phase, default 5 (fractions allowed)",
                "  --warmup SECS      warm-up phase before it, default 2 (0 for none)",
                "  --poll spin|block  spin: busy-poll the completion queue (default); block: arm it and sleep until",
                "                     a completion event. Applies to both ends of send-lat and to the write-bw client;",
                "                     echo, rsocket-*: both ends' RdmaResources idle BUSY_SPIN (spin) or BLOCK (block).",
                "  --connections N    echo, rsocket-*: N concurrent connections, each its own closed loop (or stream);",
                "                     default 1, at most " + MAX_CONNECTIONS,
                "  --peer HOST[:PORT] rdma-disni's peer: the RDMA interface address of a host running",
                "                       java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -Djava.library.path=/usr/local/lib \\",
                "                         -jar reactor-rdma-perf.jar serve <scenario> --host <its RDMA IPv4> [--size BYTES] [--poll MODE]",
                "                     (one run per start; same --size on both sides; default port " + DEFAULT_PEER_PORT + ")",
                "  --chart FILE.png   after the run, draw the latency distributions of every transport measured (one line",
                "                     each, round trip against percentile, log scales) into FILE.png",
                "  --csv              standard output holds only CSV, one line per transport; logs go to standard error",
                "  --help, -h         this text",
                "",
                "CSV columns: " + ResultWriter.CSV_HEADER,
                "  latencies in microseconds from an HdrHistogram of nanoseconds; empty where a figure does not apply.",
                "  cpu_us_per_op: CPU time over the measured phase / ops. rdma-shm, shm-floor: client = this process,",
                "  server = the peer process. rdma-loopback: client = the client thread, server = the server thread",
                "  (shared-JVM provider threads, JIT and GC in neither). memcpy: the copying thread.",
                "  echo: mib_per_s = echoes per second x size; rdma-shm, tcp: client = this process, server = the peer",
                "  process; rdma-loopback: each side's I/O thread and soft-provider thread. rsocket-*: the same;",
                "  local: this process (both ends) as client, server empty. rsocket-stream: no latencies, ops = payloads.",
                "",
                "system properties reactor.rdma.* are passed on to forked peers.",
                "exit status: 0 all ran, 1 a transport failed, 2 bad command line.");
    }
}
