package io.reactorrdma.examples.ps.ranker;

import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.UsageException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import picocli.CommandLine;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
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

    private RankerMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the ranker; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        RankerArguments o = new RankerArguments();
        CommandLine cl = CommandLines.of(o, out, err);
        Integer status = CommandLines.parse(cl, args);
        if (status != null) {
            return status;
        }
        RankerConfig config;
        Duration duration = o.duration;
        int outstanding = o.outstanding;
        try {
            config = o.config();
        } catch (IllegalArgumentException e) {
            err.println("ranker: " + e.getMessage());
            err.print(cl.getUsageMessage());
            return 2;
        }
        ShardConnections shards;
        try {
            shards = ShardConnections.open(o.shards, "ranker");
        } catch (UsageException e) {
            err.println("ranker: " + e.getMessage());
            err.print(cl.getUsageMessage());
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
            out.println(String.format(Locale.ROOT, "RANKER transport=%s requests=%d failed=%d rate=%.1f/s "
                            + "fetch-p50-ms=%.3f fetch-p99-ms=%.3f hedges=%d retries=%d", o.shards.transport(), ok.get(), failed.get(),
                    ok.get() / seconds, h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
                    shards.count("rdma.recovery.hedges"), shards.count("rdma.recovery.retries")));
            if (firstError.get() != null) {
                err.println("ranker: first failure: " + firstError.get());
            }
            return failed.get() == 0 ? 0 : 1;
        }
    }

}
