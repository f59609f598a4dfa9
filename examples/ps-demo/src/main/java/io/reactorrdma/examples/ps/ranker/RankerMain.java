package io.reactorrdma.examples.ps.ranker;

import io.reactorrdma.examples.ps.shard.MainOptions;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A ranker as a process, e.g. on another host than the shards: keeps {@code --outstanding} user
 * requests in flight against {@code --shards} for {@code --duration}, then prints one line
 * {@code RANKER transport=.. requests=.. failed=.. rate=../s fetch-p50-ms=.. fetch-p99-ms=..
 * hedges=.. retries=..}. Exit 0 when no request failed, 1 otherwise, 2 on bad options.
 *
 * <pre>
 * java -cp ps-demo.jar io.reactorrdma.examples.ps.ranker.RankerMain --shards 10.0.0.5:7000,10.0.0.6:7000 --provider disni
 * </pre>
 */
public final class RankerMain {

    /** Run time when {@code --duration} is not given: 30 s. */
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
    /** User requests in flight when {@code --outstanding} is not given: 4. */
    public static final int DEFAULT_OUTSTANDING = 4;

    static final String USAGE = "usage: ranker --shards host:port,... [--replicas R] [--transport rdma|tcp] [--duration 30s]\n"
            + "              [--outstanding N] [--models K] [--dim D] [--rows R] [--seed S]\n"
            + "              [--provider auto|shm|disni] [--shm-dir DIR] [--idle block|backoff|spin] [--send-window-bytes B]\n"
            + "  --shards lists every shard's replicas in shard order (R consecutive addresses per shard);\n"
            + "  --dim and --rows must match the shards'";
    private static final Set<String> OPTIONS = Set.of("shards", "replicas", "transport", "duration", "outstanding", "models", "dim",
            "rows", "seed", "provider", "shm-dir", "idle", "send-window-bytes");

    private RankerMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the ranker; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        MainOptions o;
        RankerConfig config;
        Duration duration;
        int outstanding;
        try {
            o = MainOptions.parse(args, OPTIONS);
            config = RankerConfig.defaults().withModels(o.integer("models", RankerConfig.DEFAULT_MODELS, 1))
                    .withDimension(o.integer("dim", RankerConfig.DEFAULT_DIMENSION, 1))
                    .withRowsPerShard(o.integer("rows", RankerConfig.DEFAULT_ROWS_PER_SHARD, 1))
                    .withSeed(o.longValue("seed", RankerConfig.DEFAULT_SEED, Long.MIN_VALUE));
            duration = o.duration("duration", DEFAULT_DURATION);
            outstanding = o.integer("outstanding", DEFAULT_OUTSTANDING, 1);
        } catch (IllegalArgumentException e) {
            err.println("ranker: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        ShardConnections shards;
        try {
            shards = ShardConnections.open(o, "ranker");
        } catch (MainOptions.UsageException e) {
            err.println("ranker: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (RuntimeException e) {
            err.println("ranker: cannot reach the shards: " + e.getMessage());
            return 1;
        }
        try (shards) {
            Recorder fetches = new Recorder(3);
            Ranker ranker = new Ranker(shards.clients(), config, (nanos, bytes) -> fetches.recordValue(nanos), shards.allocator());
            AtomicLong user = new AtomicLong();
            AtomicLong ok = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            AtomicReference<Throwable> firstError = new AtomicReference<>();
            long start = System.nanoTime();
            long end = start + duration.toNanos();
            Flux.range(0, outstanding)
                    .flatMap(w -> Mono.defer(() -> ranker.rank(user.getAndIncrement()))
                            .doOnNext(r -> ok.incrementAndGet())
                            .onErrorResume(e -> {
                                failed.incrementAndGet();
                                firstError.compareAndSet(null, e);
                                return Mono.empty();
                            })
                            .repeat(() -> System.nanoTime() - end < 0), outstanding)
                    .blockLast(duration.plus(config.deadline()).plusSeconds(30));
            double seconds = (System.nanoTime() - start) / 1e9;
            Histogram h = fetches.getIntervalHistogram();
            out.println(String.format(Locale.ROOT, "RANKER transport=%s requests=%d failed=%d rate=%.1f/s fetch-p50-ms=%.3f fetch-p99-ms=%.3f "
                            + "hedges=%d retries=%d", o.string("transport", ShardConnections.DEFAULT_TRANSPORT), ok.get(), failed.get(),
                    ok.get() / seconds, h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
                    shards.count("rdma.recovery.hedges"), shards.count("rdma.recovery.retries")));
            if (firstError.get() != null) {
                err.println("ranker: first failure: " + firstError.get());
            }
            return failed.get() == 0 ? 0 : 1;
        }
    }

}
