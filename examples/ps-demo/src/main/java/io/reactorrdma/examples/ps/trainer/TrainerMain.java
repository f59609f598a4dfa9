package io.reactorrdma.examples.ps.trainer;

import io.reactorrdma.examples.ps.ranker.ShardConnections;
import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.UsageException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import picocli.CommandLine;
import reactor.core.publisher.Flux;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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

    private TrainerMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the trainers; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        TrainerArguments o = new TrainerArguments();
        CommandLine cl = CommandLines.of(o, out, err);
        Integer status = CommandLines.parse(cl, args);
        if (status != null) {
            return status;
        }
        TrainerSettings config;
        Duration duration = o.duration;
        int count = o.trainers;
        try {
            config = o.config();
        } catch (IllegalArgumentException e) {
            err.println("trainer: " + e.getMessage());
            err.print(cl.getUsageMessage());
            return 2;
        }
        ShardConnections shards;
        try {
            shards = ShardConnections.open(o.shards, "trainer");
        } catch (UsageException e) {
            err.println("trainer: " + e.getMessage());
            err.print(cl.getUsageMessage());
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

    private static int runTrainers(TrainerArguments o, TrainerSettings config, Duration duration, int count, ShardConnections shards,
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
                            + "push-p99-ms=%.3f window-stalls=%d peak-window-bytes=%d", o.shards.transport(),
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
