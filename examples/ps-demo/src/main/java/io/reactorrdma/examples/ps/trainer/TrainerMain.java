package io.reactorrdma.examples.ps.trainer;

import io.reactorrdma.examples.ps.ranker.ShardConnections;
import io.reactorrdma.examples.ps.shard.MainOptions;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import reactor.core.publisher.Flux;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Trainers as a process: {@code --trainers} trainers step against {@code --shards} for
 * {@code --duration}, then it prints one line {@code TRAINER transport=.. trainers=.. steps=..
 * failed=.. pushes=.. push-p50-ms=.. push-p99-ms=.. window-stalls=.. peak-window-bytes=..} (the
 * last two from the RDMA engine; 0 over TCP). Exit 0 when no step failed, 1 otherwise, 2 on bad options.
 */
public final class TrainerMain {

    /** Run time when {@code --duration} is not given: 30 s. */
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
    /** Trainers when {@code --trainers} is not given: 4. */
    public static final int DEFAULT_TRAINERS = 4;

    static final String USAGE = "usage: trainer --shards host:port,... [--replicas R] [--transport rdma|tcp] [--duration 30s]\n"
            + "               [--trainers T] [--compute-us US] [--fetch-rows N] [--dim D] [--rows R] [--seed S]\n"
            + "               [--provider auto|shm|disni] [--shm-dir DIR] [--idle block|backoff|spin] [--send-window-bytes B]\n"
            + "  --dim and --rows must match the shards'";
    private static final Set<String> OPTIONS = Set.of("shards", "replicas", "transport", "duration", "trainers", "compute-us",
            "fetch-rows", "dim", "rows", "seed", "provider", "shm-dir", "idle", "send-window-bytes");

    private TrainerMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the trainers; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        MainOptions o;
        TrainerSettings config;
        Duration duration;
        int count;
        try {
            o = MainOptions.parse(args, OPTIONS);
            config = TrainerSettings.defaults().withDimension(o.integer("dim", TrainerSettings.DEFAULT_DIMENSION, 1))
                    .withRowsPerShard(o.integer("rows", TrainerSettings.DEFAULT_ROWS_PER_SHARD, 1))
                    .withFetchRows(o.integer("fetch-rows", TrainerSettings.DEFAULT_FETCH_ROWS, 1))
                    .withComputeNanos(o.longValue("compute-us", TrainerSettings.DEFAULT_COMPUTE_NANOS / 1000, 0) * 1000)
                    .withSeed(o.longValue("seed", TrainerSettings.DEFAULT_SEED, Long.MIN_VALUE));
            duration = o.duration("duration", DEFAULT_DURATION);
            count = o.integer("trainers", DEFAULT_TRAINERS, 1);
        } catch (IllegalArgumentException e) {
            err.println("trainer: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        ShardConnections shards;
        try {
            shards = ShardConnections.open(o, "trainer");
        } catch (MainOptions.UsageException e) {
            err.println("trainer: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (RuntimeException e) {
            err.println("trainer: cannot reach the shards: " + e.getMessage());
            return 1;
        }
        List<Trainer> trainers = new ArrayList<>();
        try (shards) {
            return runTrainers(o, config, duration, count, shards, trainers, out, err);
        }
    }

    private static int runTrainers(MainOptions o, TrainerSettings config, Duration duration, int count, ShardConnections shards,
                                   List<Trainer> trainers, PrintStream out, PrintStream err) {
        try {
            Recorder pushes = new Recorder(3);
            AtomicLong pushCount = new AtomicLong();
            for (int i = 0; i < count; i++) {
                trainers.add(new Trainer(shards.clients(), config.forTrainer(i), (nanos, bytes) -> {
                    pushes.recordValue(nanos);
                    pushCount.incrementAndGet();
                }, shards.allocator()));
            }
            AtomicLong failed = new AtomicLong();
            AtomicReference<Throwable> firstError = new AtomicReference<>();
            long end = System.nanoTime() + duration.toNanos();
            // a failed step ends that trainer (its push streams may be gone); the others go on
            Flux.fromIterable(trainers)
                    .flatMap(t -> t.step().repeat(() -> System.nanoTime() - end < 0).onErrorResume(e -> {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, e);
                        return Flux.empty();
                    }), count)
                    .blockLast(duration.plus(config.deadline()).plusSeconds(30));
            Histogram h = pushes.getIntervalHistogram();
            long steps = trainers.stream().mapToLong(Trainer::steps).sum();
            out.println(String.format(Locale.ROOT, "TRAINER transport=%s trainers=%d steps=%d failed=%d pushes=%d push-p50-ms=%.3f "
                            + "push-p99-ms=%.3f window-stalls=%d peak-window-bytes=%d", o.string("transport", ShardConnections.DEFAULT_TRANSPORT),
                    count, steps, failed.get(), pushCount.get(), h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
                    shards.count("rdma.window.stalls"), peak(shards)));
            if (firstError.get() != null) {
                err.println("trainer: first failure: " + firstError.get());
            }
            return failed.get() == 0 ? 0 : 1;
        } finally {
            trainers.forEach(Trainer::close);
        }
    }

    private static long peak(ShardConnections shards) {
        return (long) shards.meters().find("rdma.window.peak.bytes").gauges().stream().mapToDouble(g -> g.value()).max().orElse(0);
    }
}
