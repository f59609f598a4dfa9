package io.reactorrdma.perf.incast.cli;

import io.reactorrdma.perf.cli.UsageException;
import io.reactorrdma.perf.incast.Placement;
import io.reactorrdma.perf.incast.sweep.Arm;
import io.reactorrdma.perf.incast.sweep.Sweep;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The parsed command line of {@code incast-sim}. Immutable; every default declared once here.
 *
 * @param trainers   trainer hosts (default {@value #DEFAULT_TRAINERS})
 * @param servers    parameter-server hosts (default {@value #DEFAULT_SERVERS})
 * @param windows    the sweep's windows in bytes, ascending (default 8 KiB … 1 MiB in powers of two)
 * @param windowOff  whether the sweep holds {@code off}: the DCQCN arm without a window (default true)
 * @param kinds      the arms asked for (default all: pfc, dcqcn, window)
 * @param durationPs simulated time during which trainers start iterations (default 50 ms); what they post then drains
 * @param computePs  how long a trainer computes before each push round, ps; null for the workload's default
 * @param iterations iterations per trainer at most (default {@link Integer#MAX_VALUE}: the duration alone bounds them);
 *                   equal work for every arm, where the duration alone lets faster arms run more iterations
 * @param seed       the random seed (default {@value #DEFAULT_SEED})
 * @param mtuBytes   the RoCE MTU (default 1024)
 * @param fragmentBytes the engines' fragment size (default the engine's, {@code SenderConfig.DEFAULT_FRAGMENT_BYTES}:
 *                   64 KiB); a push of one fragment is never held back by a window, so smaller fragments let it act
 * @param topology   leaf-spine (default) or one-switch
 * @param placement  where the servers sit on a leaf-spine: spread across the ToRs (default) or clustered
 * @param sync       synchronous trainers (default: a barrier per iteration) or asynchronous
 * @param csv        standard output holds only the CSV
 * @param chart      where to draw the chart, or null
 * @param threads    arms run at once (default {@value Sweep#DEFAULT_THREADS})
 */
public record IncastOptions(int trainers, int servers, List<Long> windows, boolean windowOff, Set<Arm.Kind> kinds,
                            long durationPs, Long computePs, int iterations, long seed, int mtuBytes, int fragmentBytes, TopologyKind topology, Placement placement,
                            boolean sync, boolean csv, Path chart, int threads) {

    /** The paper's trainers and parameter servers (§6.3). */
    public static final int DEFAULT_TRAINERS = 346;
    public static final int DEFAULT_SERVERS = 124;
    /** 50 ms of simulated time: about ten synchronous iterations at the paper's scale. */
    public static final long DEFAULT_DURATION_PS = 50_000_000_000L;
    public static final long DEFAULT_SEED = 1;
    /** The default sweep: 8 KiB … 1 MiB in powers of two, and off. */
    public static final long DEFAULT_WINDOW_MIN_BYTES = 8 * 1024;
    public static final long DEFAULT_WINDOW_MAX_BYTES = 1024 * 1024;
    /** The longest simulated duration accepted: 10 s (a paper-scale run of 50 ms already takes minutes). */
    public static final long MAX_DURATION_PS = 10_000_000_000_000L;
    /** The most hosts one switch is given. */
    public static final int MAX_ONE_SWITCH_HOSTS = 4096;
    public static final int MAX_THREADS = 64;
    /** The largest window: 1 GiB (the engine's window is a long, but nothing larger is meaningful here). */
    public static final long MAX_WINDOW_BYTES = 1L << 30;

    /** The topologies. */
    public enum TopologyKind {
        LEAF_SPINE("leaf-spine"), ONE_SWITCH("one-switch");

        private final String id;

        TopologyKind(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }
    }

    public IncastOptions {
        windows = List.copyOf(windows);
        kinds = Set.copyOf(kinds);
    }

    /** The arms to run, in order: PFC only, DCQCN without a window (also the sweep's "off"), then each window ascending. */
    public List<Arm> arms() {
        List<Arm> arms = new ArrayList<>();
        if (kinds.contains(Arm.Kind.PFC)) {
            arms.add(Arm.pfc());
        }
        if (kinds.contains(Arm.Kind.DCQCN) || (kinds.contains(Arm.Kind.WINDOW) && windowOff)) {
            arms.add(Arm.dcqcn());
        }
        if (kinds.contains(Arm.Kind.WINDOW)) {
            for (long w : windows) {
                arms.add(Arm.window(w));
            }
        }
        return arms;
    }

    /** The sweep's windows unless {@code --window} is given. */
    public static List<Long> defaultWindows() {
        List<Long> w = new ArrayList<>();
        for (long b = DEFAULT_WINDOW_MIN_BYTES; b <= DEFAULT_WINDOW_MAX_BYTES; b *= 2) {
            w.add(b);
        }
        return w;
    }

    /**
     * Parses the options after {@code incast-sim}; as {@code --name value} or {@code --name=value}.
     *
     * @param maxLeafSpineHosts the hosts the leaf-spine topology holds
     * @throws UsageException saying what is wrong and what to use
     */
    public static IncastOptions parse(String[] args, int maxLeafSpineHosts) {
        int trainers = DEFAULT_TRAINERS;
        int servers = DEFAULT_SERVERS;
        List<Long> windows = defaultWindows();
        boolean off = true;
        Set<Arm.Kind> kinds = EnumSet.allOf(Arm.Kind.class);
        long duration = DEFAULT_DURATION_PS;
        Long compute = null;
        int iterations = Integer.MAX_VALUE;
        long seed = DEFAULT_SEED;
        int mtu = io.reactorrdma.perf.incast.IncastConfig.DEFAULT_MTU_BYTES;
        int fragment = io.reactorrdma.perf.incast.SenderConfig.DEFAULT_FRAGMENT_BYTES;
        TopologyKind topology = TopologyKind.LEAF_SPINE;
        Placement placement = null;
        Boolean sync = null;
        boolean csv = false;
        Path chart = null;
        int threads = Sweep.DEFAULT_THREADS;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            switch (name) {
                case "--csv", "--sync", "--async" -> {
                    if (value != null) {
                        throw new UsageException(name + " takes no value");
                    }
                    if (name.equals("--csv")) {
                        csv = true;
                    } else {
                        boolean s = name.equals("--sync");
                        if (sync != null && sync != s) {
                            throw new UsageException("--sync and --async exclude each other; give one");
                        }
                        sync = s;
                    }
                    continue;
                }
                case "--trainers", "--servers", "--window", "--duration", "--compute", "--iterations", "--seed", "--mtu", "--fragment", "--topology", "--placement",
                        "--arms", "--chart", "--threads" -> {
                }
                default -> throw new UsageException("unknown option '" + arg + "' for incast-sim; see incast-sim --help");
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException(name + " needs a value; see incast-sim --help");
                }
                value = args[++i];
            }
            value = value.trim();
            switch (name) {
                case "--trainers" -> trainers = count(name, value, MAX_ONE_SWITCH_HOSTS);
                case "--servers" -> servers = count(name, value, MAX_ONE_SWITCH_HOSTS);
                case "--threads" -> threads = count(name, value, MAX_THREADS);
                case "--iterations" -> iterations = count(name, value, Integer.MAX_VALUE);
                case "--window" -> {
                    windows = new ArrayList<>();
                    off = false;
                    for (String part : value.split(",")) {
                        String p = part.trim().toLowerCase(Locale.ROOT);
                        if (p.equals("off")) {
                            off = true;
                        } else if (!p.isEmpty()) {
                            long w = size(name, p);
                            if (!windows.contains(w)) {
                                windows.add(w);
                            }
                        }
                    }
                    if (windows.isEmpty() && !off) {
                        throw new UsageException("--window is empty; give a comma list of sizes and/or off, e.g. 64k,256k,off");
                    }
                    windows.sort(null);
                }
                case "--duration" -> duration = duration(name, value, 1_000_000);
                case "--compute" -> compute = duration(name, value, 0);
                case "--seed" -> {
                    try {
                        seed = Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        throw new UsageException("bad --seed '" + value + "': use a whole number (a long)");
                    }
                }
                case "--mtu" -> {
                    if (!Set.of("256", "512", "1024", "2048", "4096").contains(value)) {
                        throw new UsageException("bad --mtu '" + value + "': use a RoCE MTU, one of 256, 512, 1024, 2048, 4096");
                    }
                    mtu = Integer.parseInt(value);
                }
                case "--fragment" -> {
                    long f = size(name, value);
                    if (f > Integer.MAX_VALUE) {
                        throw new UsageException("bad --fragment '" + value + "': at most " + Arm.size(1L << 30));
                    }
                    fragment = (int) f;
                }
                case "--topology" -> topology = switch (value.toLowerCase(Locale.ROOT)) {
                    case "leaf-spine" -> TopologyKind.LEAF_SPINE;
                    case "one-switch" -> TopologyKind.ONE_SWITCH;
                    default -> throw new UsageException("bad --topology '" + value + "': use leaf-spine or one-switch");
                };
                case "--placement" -> placement = switch (value.toLowerCase(Locale.ROOT)) {
                    case "spread" -> Placement.SPREAD;
                    case "clustered" -> Placement.CLUSTERED;
                    default -> throw new UsageException("bad --placement '" + value + "': use spread or clustered");
                };
                case "--arms" -> kinds = kinds(value);
                case "--chart" -> {
                    if (!value.toLowerCase(Locale.ROOT).endsWith(".png")) {
                        throw new UsageException("bad --chart '" + value + "': give a file name ending in .png");
                    }
                    chart = Path.of(value);
                }
                default -> throw new IllegalStateException(name);
            }
        }
        if (placement != null && topology != TopologyKind.LEAF_SPINE) {
            throw new UsageException("--placement applies to --topology leaf-spine only: one switch has no ToRs to spread over");
        }
        int max = topology == TopologyKind.LEAF_SPINE ? maxLeafSpineHosts : MAX_ONE_SWITCH_HOSTS;
        if (trainers + servers > max) {
            throw new UsageException(trainers + " trainers + " + servers + " servers = " + (trainers + servers)
                    + " hosts, more than --topology " + topology.id() + " holds (" + max + "); use fewer hosts"
                    + (topology == TopologyKind.LEAF_SPINE ? " or --topology one-switch" : ""));
        }
        if (chart != null && (!kinds.contains(Arm.Kind.WINDOW) || windows.isEmpty())) {
            throw new UsageException("--chart draws the window arms against W, and this sweep has none: add window to --arms "
                    + "and a size to --window, or leave --chart out");
        }
        return new IncastOptions(trainers, servers, windows, off, kinds, duration, compute, iterations, seed, mtu, fragment, topology,
                placement == null ? Placement.SPREAD : placement, sync == null || sync, csv, chart, threads);
    }

    private static Set<Arm.Kind> kinds(String value) {
        Set<Arm.Kind> kinds = EnumSet.noneOf(Arm.Kind.class);
        for (String part : value.split(",")) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            if (p.isEmpty()) {
                continue;
            }
            Arm.Kind kind = null;
            for (Arm.Kind k : Arm.Kind.values()) {
                if (k.id().equals(p)) {
                    kind = k;
                }
            }
            if (kind == null) {
                throw new UsageException("unknown arm '" + part.trim() + "' in --arms; use a comma list of pfc, dcqcn, window");
            }
            kinds.add(kind);
        }
        if (kinds.isEmpty()) {
            throw new UsageException("--arms is empty; use a comma list of pfc, dcqcn, window");
        }
        return kinds;
    }

    private static int count(String name, String s, int max) {
        int n;
        try {
            n = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new UsageException("bad " + name + " '" + s + "': use a whole number, 1.." + max);
        }
        if (n < 1 || n > max) {
            throw new UsageException("bad " + name + " '" + s + "': must be 1.." + max);
        }
        return n;
    }

    /** A size for option {@code name}: bytes with an optional binary suffix k, m or g ({@code 64k} = 65536). */
    static long size(String name, String s) {
        String v = s;
        long unit = 1;
        char last = v.isEmpty() ? ' ' : v.charAt(v.length() - 1);
        if (last == 'k' || last == 'm' || last == 'g') {
            unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
            v = v.substring(0, v.length() - 1);
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException("bad " + name + " size '" + s + "': use bytes with an optional binary suffix (64k = 65536, 1m)"
                    + (name.equals("--window") ? ", or off" : ""));
        }
        if (n < 1 || n > MAX_WINDOW_BYTES / unit) {
            throw new UsageException("bad " + name + " size '" + s + "': must be 1 byte .. 1g");
        }
        return n * unit;
    }

    /** Simulated time with a unit, {@code min} ps or more: {@code 50ms}, {@code 500us}, {@code 0.05s}, {@code 2000000ns}. */
    static long duration(String name, String s, long min) {
        String v = s.toLowerCase(Locale.ROOT);
        long psPerUnit;
        String number;
        if (v.endsWith("ms")) {
            psPerUnit = 1_000_000_000L;
            number = v.substring(0, v.length() - 2);
        } else if (v.endsWith("us")) {
            psPerUnit = 1_000_000L;
            number = v.substring(0, v.length() - 2);
        } else if (v.endsWith("ns")) {
            psPerUnit = 1_000L;
            number = v.substring(0, v.length() - 2);
        } else if (v.endsWith("s")) {
            psPerUnit = 1_000_000_000_000L;
            number = v.substring(0, v.length() - 1);
        } else {
            throw new UsageException("bad " + name + " '" + s + "': give simulated time with a unit, e.g. 50ms, 500us or 0.05s");
        }
        double d;
        try {
            d = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new UsageException("bad " + name + " '" + s + "': give simulated time with a unit, e.g. 50ms, 500us or 0.05s");
        }
        double ps = d * psPerUnit;
        if (!(ps >= min) || ps > MAX_DURATION_PS) {
            throw new UsageException("bad " + name + " '" + s + "': must be " + (min == 0 ? "0" : "1us") + " .. 10s of simulated time");
        }
        return Math.round(ps);
    }
}
