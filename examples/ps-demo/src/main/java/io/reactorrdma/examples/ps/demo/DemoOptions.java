package io.reactorrdma.examples.ps.demo;

import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code demo} command's options, parsed and checked. Every default is a {@code DEFAULT_*}
 * constant; {@code --quick} switches the defaults to the {@code QUICK_*} ones (an option given
 * explicitly wins over both).
 *
 * <pre>
 * demo [--quick] [--shards N] [--replicas N] [--rankers N] [--trainers N] [--duration 15s]
 *      [--transports rdma,tcp] [--provider shm|disni] [--hosts h:rdma:tcp,...] [--out DIR]
 * </pre>
 */
public final class DemoOptions {

    /** Shards (each a separate process per replica): 4. */
    public static final int DEFAULT_SHARDS = 4;
    /** Replicas per shard: 2 (the recovery phase kills one of them, so at least 2). */
    public static final int DEFAULT_REPLICAS = 2;
    /** Outstanding user requests of the ranker workload: 8. */
    public static final int DEFAULT_RANKERS = 8;
    /** Trainers pushing at once: 8 (the incast: many trainers against few shards). */
    public static final int DEFAULT_TRAINERS = 8;
    /** Measured time of each arm (inference per transport, training per window setting, recovery): 15 s. */
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(15);
    /** Unmeasured warm-up before each arm (JIT of this JVM and of the shards, connections, pools): 3 s. */
    public static final Duration DEFAULT_WARMUP = Duration.ofSeconds(3);
    /** Transports compared: RDMA, then TCP. */
    public static final List<String> DEFAULT_TRANSPORTS = List.of("rdma", "tcp");
    /** RDMA provider of the shards and of this JVM: shm (software RDMA between processes on this host). */
    public static final String DEFAULT_PROVIDER = "shm";
    /** Where the report goes: demo-report/. */
    public static final Path DEFAULT_OUT = Path.of("demo-report");

    /** {@code --quick}: 2 shards (x 2 replicas). */
    public static final int QUICK_SHARDS = 2;
    /** {@code --quick}: 4 outstanding user requests. */
    public static final int QUICK_RANKERS = 4;
    /** {@code --quick}: 4 trainers. */
    public static final int QUICK_TRAINERS = 4;
    /** {@code --quick}: 3 s per arm, so that the whole demo takes about 30 s. */
    public static final Duration QUICK_DURATION = Duration.ofSeconds(3);
    /** {@code --quick}: 1 s warm-up per arm. */
    public static final Duration QUICK_WARMUP = Duration.ofSeconds(1);

    private static final int MAX_PROCESSES = 64;
    private static final Duration MIN_DURATION = Duration.ofSeconds(1);

    private final boolean quick;
    private final int shards;
    private final int replicas;
    private final int rankers;
    private final int trainers;
    private final Duration duration;
    private final Duration warmup;
    private final List<String> transports;
    private final String provider;
    private final List<InetSocketAddress[]> hosts;
    private final Path out;
    private final List<String> commandLine;

    private DemoOptions(DemoArguments b, List<String> commandLine) {
        this.quick = b.quick;
        this.shards = b.shards != null ? b.shards : quick ? QUICK_SHARDS : DEFAULT_SHARDS;
        this.replicas = b.replicas != null ? b.replicas : DEFAULT_REPLICAS;
        this.rankers = b.rankers != null ? b.rankers : quick ? QUICK_RANKERS : DEFAULT_RANKERS;
        this.trainers = b.trainers != null ? b.trainers : quick ? QUICK_TRAINERS : DEFAULT_TRAINERS;
        this.duration = b.duration != null ? b.duration : quick ? QUICK_DURATION : DEFAULT_DURATION;
        this.warmup = quick ? QUICK_WARMUP : DEFAULT_WARMUP;
        this.transports = b.transports != null ? b.transports : DEFAULT_TRANSPORTS;
        this.provider = b.provider != null ? b.provider : DEFAULT_PROVIDER;
        this.hosts = b.hosts;
        this.out = b.out != null ? b.out : DEFAULT_OUT;
        this.commandLine = List.copyOf(commandLine);
        check();
    }

    /** Parses the arguments after {@code demo} (picocli, {@link DemoArguments}); throws {@link UsageException} saying what is wrong. */
    public static DemoOptions parse(List<String> args) {
        DemoArguments b = new DemoArguments();
        try {
            CommandLines.of(b, System.out, System.err).parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(CommandLines.message(e));
        }
        return new DemoOptions(b, args);
    }

    private void check() {
        positive("--shards", shards);
        positive("--rankers", rankers);
        positive("--trainers", trainers);
        if (replicas < 2) {
            throw new UsageException("--replicas must be at least 2 (the recovery phase kills one replica of a shard "
                    + "and its user requests must go on to the other), got " + replicas);
        }
        if (hosts == null && shards * replicas > MAX_PROCESSES) {
            throw new UsageException("--shards x --replicas = " + shards * replicas + " processes; at most " + MAX_PROCESSES
                    + " on one host");
        }
        if (hosts != null && hosts.size() != shards * replicas) {
            throw new UsageException("--hosts lists " + hosts.size() + " replicas but --shards " + shards + " x --replicas "
                    + replicas + " needs " + shards * replicas + " (shard 0's replicas first, then shard 1's, ...)");
        }
        if (duration.compareTo(MIN_DURATION) < 0) {
            throw new UsageException("--duration must be at least " + MIN_DURATION.toMillis() + " ms, got " + duration.toMillis() + " ms");
        }
    }

    private static void positive(String name, int n) {
        if (n < 1) {
            throw new UsageException(name + " must be at least 1, got " + n);
        }
    }

    /** {@code 15s}, {@code 500ms}, {@code 2m} or plain seconds ({@code 15}). */
    static Duration duration(String name, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
            }
            if (v.endsWith("m")) {
                return Duration.ofSeconds(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60));
            }
            return Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
        } catch (NumberFormatException e) {
            throw new UsageException(name + " needs a duration such as 15s, 500ms or 2m, got '" + value + "'");
        }
    }

    static List<String> transports(String value) {
        Set<String> set = new LinkedHashSet<>();
        for (String t : value.split(",")) {
            String s = t.trim().toLowerCase(Locale.ROOT);
            if (!s.equals("rdma") && !s.equals("tcp")) {
                throw new UsageException("--transports takes rdma and/or tcp (e.g. rdma,tcp), got '" + t + "'");
            }
            set.add(s);
        }
        if (!set.contains("rdma")) {
            throw new UsageException("--transports must include rdma: the training and recovery phases run over RDMA");
        }
        return List.copyOf(set);
    }

    static String provider(String value) {
        String p = value.trim().toLowerCase(Locale.ROOT);
        if (!p.equals("shm") && !p.equals("disni")) {
            throw new UsageException("--provider takes shm (processes on this host) or disni (RDMA hardware), got '" + value + "'");
        }
        return p;
    }

    /** {@code host:rdmaPort:tcpPort,...}: each replica's RDMA and TCP address. */
    static List<InetSocketAddress[]> hosts(String value) {
        List<InetSocketAddress[]> list = new ArrayList<>();
        for (String entry : value.split(",")) {
            String[] p = entry.trim().split(":");
            if (p.length != 3 || p[0].isBlank()) {
                throw new UsageException("--hosts takes host:rdmaPort:tcpPort per replica, comma-separated, got '" + entry + "'");
            }
            int rdma = port(entry, p[1]);
            int tcp = port(entry, p[2]);
            list.add(new InetSocketAddress[] {
                InetSocketAddress.createUnresolved(p[0], rdma), InetSocketAddress.createUnresolved(p[0], tcp)});
        }
        return List.copyOf(list);
    }

    private static int port(String entry, String s) {
        try {
            int p = Integer.parseInt(s.trim());
            if (p < 1 || p > 65535) {
                throw new NumberFormatException();
            }
            return p;
        } catch (NumberFormatException e) {
            throw new UsageException("--hosts entry '" + entry + "' has the port '" + s + "'; ports are 1..65535");
        }
    }

    /** Whether {@code --quick} was given. */
    public boolean quick() {
        return quick;
    }

    /** Shards; default {@link #DEFAULT_SHARDS} ({@link #QUICK_SHARDS} with --quick). */
    public int shards() {
        return shards;
    }

    /** Replicas per shard; default {@link #DEFAULT_REPLICAS}. */
    public int replicas() {
        return replicas;
    }

    /** Outstanding user requests; default {@link #DEFAULT_RANKERS} ({@link #QUICK_RANKERS} with --quick). */
    public int rankers() {
        return rankers;
    }

    /** Trainers; default {@link #DEFAULT_TRAINERS} ({@link #QUICK_TRAINERS} with --quick). */
    public int trainers() {
        return trainers;
    }

    /** Measured time per arm; default {@link #DEFAULT_DURATION} ({@link #QUICK_DURATION} with --quick). */
    public Duration duration() {
        return duration;
    }

    /** Warm-up per arm: {@link #DEFAULT_WARMUP} ({@link #QUICK_WARMUP} with --quick). */
    public Duration warmup() {
        return warmup;
    }

    /** Transports of the inference phase, RDMA first; default {@link #DEFAULT_TRANSPORTS}. */
    public List<String> transports() {
        return transports;
    }

    /** Whether the inference phase also runs over TCP. */
    public boolean withTcp() {
        return transports.contains("tcp");
    }

    /** RDMA provider; default {@link #DEFAULT_PROVIDER}. */
    public String provider() {
        return provider;
    }

    /**
     * The replicas started by hand ({@code --hosts}): per replica, in shard order, its RDMA and TCP
     * address; null when the demo starts the shards itself.
     */
    public List<InetSocketAddress[]> hosts() {
        return hosts;
    }

    /** The report directory; default {@link #DEFAULT_OUT}. */
    public Path out() {
        return out;
    }

    /** The arguments as given (for the report). */
    public List<String> commandLine() {
        return commandLine;
    }

    /** The usage text of {@code demo}, as picocli writes it from {@link DemoArguments}. */
    public static String usage() {
        PrintStream none = new PrintStream(OutputStream.nullOutputStream());
        return CommandLines.of(new DemoArguments(), none, none).getUsageMessage();
    }
}
