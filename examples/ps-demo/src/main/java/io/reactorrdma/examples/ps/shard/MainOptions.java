package io.reactorrdma.examples.ps.shard;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;

import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name value} options of the example processes ({@link ShardMain}, the ranker's and
 * the trainer's mains): parsed once, read with typed getters that name the option in their error,
 * and the {@link RdmaResources} the options {@code --provider}, {@code --shm-dir},
 * {@code --send-window-bytes} and {@code --idle} describe. A bad option is a {@link UsageException}.
 */
public final class MainOptions {

    /** Provider when {@code --provider} is not given: {@code auto} (DiSNI where a NIC is, else soft). */
    public static final String DEFAULT_PROVIDER = "auto";
    /** Idle strategy of the I/O thread when {@code --idle} is not given: {@code block}, kind to a small host. */
    public static final String DEFAULT_IDLE = "block";

    /** A bad command line: its message says which option and what to do; mains print it with their usage and exit 2. */
    public static final class UsageException extends IllegalArgumentException {
        /** A usage error saying {@code message}. */
        public UsageException(String message) {
            super(message);
        }
    }

    private final Map<String, String> values = new LinkedHashMap<>();

    private MainOptions() {
    }

    /** Parses {@code args} as {@code --name value} pairs; only the names in {@code known} are accepted. */
    public static MainOptions parse(String[] args, Set<String> known) {
        MainOptions o = new MainOptions();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || !known.contains(a.substring(2))) {
                throw new UsageException("unknown option '" + a + "'; the options are --" + String.join(", --", known));
            }
            if (i + 1 >= args.length) {
                throw new UsageException("option " + a + " needs a value");
            }
            o.values.put(a.substring(2), args[++i]);
        }
        return o;
    }

    /** Whether {@code --name} was given. */
    public boolean has(String name) {
        return values.containsKey(name);
    }

    /** {@code --name}'s value, or {@code fallback}. */
    public String string(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    /** A required option's value. */
    public String required(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new UsageException("option --" + name + " is required");
        }
        return v;
    }

    /** {@code --name} as a whole number of at least {@code min}, or {@code fallback}. */
    public int integer(String name, int fallback, int min) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min) {
                throw new UsageException("--" + name + " must be at least " + min + ", got " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " takes a whole number, got '" + v + "'");
        }
    }

    /** {@code --name} as a long of at least {@code min}, or {@code fallback}. */
    public long longValue(String name, long fallback, long min) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n < min) {
                throw new UsageException("--" + name + " must be at least " + min + ", got " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " takes a whole number, got '" + v + "'");
        }
    }

    /** {@code --name} as a number, or {@code fallback}. */
    public double decimal(String name, double fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " takes a number, got '" + v + "'");
        }
    }

    /** A duration such as {@code 30s}, {@code 500ms} or {@code 2m}. */
    public Duration duration(String name, Duration fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            } else if (s.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
            } else if (s.endsWith("m")) {
                return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)) * 60);
            }
        } catch (NumberFormatException e) {
            // falls through to the usage error
        }
        throw new UsageException("--" + name + " takes a duration such as 30s, 500ms or 2m, got '" + v + "'");
    }

    /**
     * Resources named {@code name} with one I/O thread, as {@code --provider} (auto, shm, loopback
     * or disni), {@code --shm-dir}, {@code --send-window-bytes} and {@code --idle} (block, backoff,
     * spin) say; meters to {@code registry} (may be null).
     */
    public RdmaResources rdmaResources(String name, MeterRegistry registry) {
        String provider = string("provider", DEFAULT_PROVIDER);
        if (!Set.of("auto", "shm", "disni", "loopback", "soft").contains(provider)) {
            throw new UsageException("--provider must be auto, shm or disni, got '" + provider + "'");
        }
        SoftConfig soft = SoftConfig.fromSystemProperties();
        if (has("shm-dir")) {
            soft = soft.withShmDirectory(Paths.get(string("shm-dir", "")));
        }
        IdleStrategy idle;
        switch (string("idle", DEFAULT_IDLE)) {
            case "block": idle = IdleStrategy.BLOCK; break;
            case "backoff": idle = IdleStrategy.BACK_OFF; break;
            case "spin": idle = IdleStrategy.BUSY_SPIN; break;
            default: throw new UsageException("--idle must be block, backoff or spin, got '" + string("idle", "") + "'");
        }
        EngineConfig engine = EngineConfig.defaults()
                .withSendWindowBytes(longValue("send-window-bytes", EngineConfig.DEFAULT_SEND_WINDOW_BYTES, 1));
        return RdmaResources.builder(name).provider(provider).softConfig(soft).threads(1).idle(idle).engine(engine)
                .metrics(registry).build();
    }
}
