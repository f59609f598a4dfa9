package io.reactorrdma.examples.ps.shard;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * The options every example process ({@link ShardMain}, the ranker's and the trainer's mains) shares, a picocli
 * mixin: {@code --provider}, {@code --shm-dir}, {@code --send-window-bytes} and {@code --idle}, and the
 * {@link RdmaResources} they describe. A bad value is a {@link UsageException}.
 */
public final class MainOptions {

    /** Provider when {@code --provider} is not given: {@code auto} (DiSNI where a NIC is, else soft). */
    public static final String DEFAULT_PROVIDER = "auto";
    /** Idle strategy of the I/O thread when {@code --idle} is not given: {@code block}, kind to a small host. */
    public static final String DEFAULT_IDLE = "block";

    @Option(names = "--provider", paramLabel = "auto|shm|disni", converter = Provider.class,
            description = "the RDMA provider, default " + DEFAULT_PROVIDER + " (DiSNI where a NIC is, else the soft one)")
    String provider = DEFAULT_PROVIDER;

    @Option(names = "--shm-dir", paramLabel = "DIR", description = "the soft provider's shared-memory directory")
    Path shmDir;

    @Option(names = "--send-window-bytes", paramLabel = "B", description = "the engines' send window, default the engine's")
    long sendWindowBytes = EngineConfig.DEFAULT_SEND_WINDOW_BYTES;

    @Option(names = "--idle", paramLabel = "block|backoff|spin", converter = Idle.class,
            description = "how the I/O thread idles, default " + DEFAULT_IDLE)
    IdleStrategy idle = IdleStrategy.BLOCK;

    /**
     * Resources named {@code name} with one I/O thread, as the options say; meters to {@code registry} (may be null).
     *
     * @throws UsageException for a send window below 1 byte
     */
    public RdmaResources rdmaResources(String name, MeterRegistry registry) {
        if (sendWindowBytes < 1) {
            throw new UsageException("--send-window-bytes must be at least 1, got " + sendWindowBytes);
        }
        SoftConfig soft = SoftConfig.fromSystemProperties();
        if (shmDir != null) {
            soft = soft.withShmDirectory(shmDir);
        }
        EngineConfig engine = EngineConfig.defaults().withSendWindowBytes(sendWindowBytes);
        return RdmaResources.builder(name).provider(provider).softConfig(soft).threads(1).idle(idle).engine(engine)
                .metrics(registry).build();
    }

    /** {@code --provider}: auto, shm or disni (and the soft provider's other fabrics, loopback and soft). */
    static final class Provider implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!Set.of("auto", "shm", "disni", "loopback", "soft").contains(value)) {
                throw new UsageException("--provider must be auto, shm or disni, got '" + value + "'");
            }
            return value;
        }
    }

    /** {@code --idle}: block, backoff or spin. */
    static final class Idle implements ITypeConverter<IdleStrategy> {
        @Override
        public IdleStrategy convert(String value) {
            switch (value.toLowerCase(Locale.ROOT)) {
                case "block": return IdleStrategy.BLOCK;
                case "backoff": return IdleStrategy.BACK_OFF;
                case "spin": return IdleStrategy.BUSY_SPIN;
                default: throw new UsageException("--idle must be block, backoff or spin, got '" + value + "'");
            }
        }
    }
}
