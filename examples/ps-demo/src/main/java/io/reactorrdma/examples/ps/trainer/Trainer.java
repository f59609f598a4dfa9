package io.reactorrdma.examples.ps.trainer;

import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.examples.ps.wire.FetchReply;
import io.reactorrdma.examples.ps.wire.FetchRequest;
import io.reactorrdma.examples.ps.wire.PushBatch;
import io.reactorrdma.rsocket.shard.CallOptions;
import io.reactorrdma.rsocket.fanout.FanOut;
import io.rsocket.Payload;
import io.rsocket.core.RSocketClient;
import io.rsocket.util.ByteBufPayload;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The training side of a parameter server. {@link #step()}: fetch {@link TrainerSettings#fetchRows()}
 * rows from every shard ({@link FanOut#requestResponse}, idempotent), run a synthetic
 * forward/backward pass of real CPU for {@link TrainerSettings#computeNanos()} over them (on a Reactor
 * parallel thread, never on an I/O thread), then push one gradient batch to every shard — each of
 * a {@link PushSizes} size, rows {@code first..first+n} of the shard — over a long-lived push stream
 * (request-channel) per shard, and complete once every shard acked. {@link PushObserver} sees each
 * push's time from send to ack. Steps of one trainer must not overlap (subscribe to the next after
 * the previous completed); run many trainers for concurrency. {@link #close()} completes the
 * streams. Shard {@code s} of the map must be the shard of index {@code s}.
 *
 * <p>Pushes are not idempotent, so over a replicated shard client a push stream runs on one replica
 * and is never retried: this example's training does not keep replicas consistent (a real one would
 * push to every replica or through a log).
 */
public final class Trainer implements AutoCloseable {

    private final Map<Integer, ? extends RSocketClient> shards;
    private final TrainerSettings config;
    private final ByteBufAllocator alloc;
    private final PushChannel[] channels;
    private final PushSizes sizes;
    private final SplittableRandom random;
    private final Scheduler compute;
    private final float[] activation;
    private final float[] gradient;
    private final int[] fetchFirst;
    private final AtomicLong rowsPushed = new AtomicLong();
    private final AtomicLong steps = new AtomicLong();
    /** Defeats dead-code elimination of the synthetic pass. */
    private volatile double sink;

    /** A trainer writing requests with {@link ByteBufAllocator#DEFAULT}. */
    public Trainer(Map<Integer, ? extends RSocketClient> shards, TrainerSettings config, PushObserver observer) {
        this(shards, config, observer, ByteBufAllocator.DEFAULT);
    }

    /** A trainer writing requests and batches with {@code alloc} (on RDMA: the client's registered allocator). */
    public Trainer(Map<Integer, ? extends RSocketClient> shards, TrainerSettings config, PushObserver observer, ByteBufAllocator alloc) {
        this.shards = Map.copyOf(Objects.requireNonNull(shards, "shards"));
        this.config = Objects.requireNonNull(config, "config");
        this.alloc = Objects.requireNonNull(alloc, "alloc");
        Objects.requireNonNull(observer, "observer");
        this.sizes = config.pushSizes();
        this.random = new SplittableRandom(config.seed() ^ 0x5DEECE66DL);
        this.compute = Schedulers.parallel();
        this.activation = new float[config.dimension()];
        for (int c = 0; c < activation.length; c++) {
            activation[c] = (float) (random.nextDouble() - 0.5);
        }
        this.gradient = new float[config.dimension()];
        this.fetchFirst = new int[shards.size()];
        this.channels = new PushChannel[shards.size()];
        for (int s = 0; s < channels.length; s++) {
            RSocketClient c = shards.get(s);
            if (c == null) {
                close();
                throw new IllegalArgumentException("the shards must be numbered 0.." + (shards.size() - 1) + "; got " + shards.keySet());
            }
            channels[s] = new PushChannel(s, c, observer);
        }
    }

    /** One step: fetch, compute, push to every shard; completes when every shard acked. */
    public Mono<Void> step() {
        return Mono.defer(() -> {
            int count = shards.size();
            for (int s = 0; s < count; s++) {
                fetchFirst[s] = random.nextInt(config.rowsPerShard() - config.fetchRows() + 1);
            }
            return FanOut.requestResponse(shards, s -> ByteBufPayload.create(FetchRequest.encodeRange(alloc,
                            (long) fetchFirst[s] * count + s, count, config.fetchRows())), config.deadline())
                    .contextWrite(CallOptions.idempotent().timeout(config.deadline()))
                    .publishOn(compute)
                    .map(this::forwardBackward)
                    .flatMap(ignored -> pushAll())
                    .doOnSuccess(v -> steps.incrementAndGet());
        });
    }

    /** The synthetic pass: dot products of the fetched rows with the activation, accumulated into the gradient, for computeNanos. */
    private Boolean forwardBackward(Map<Integer, Payload> answers) {
        try {
            ByteBuffer[] rows = new ByteBuffer[answers.size()];
            for (Map.Entry<Integer, Payload> e : answers.entrySet()) {
                checkReply(e.getKey(), e.getValue());
                rows[e.getKey()] = FetchReply.rows(e.getValue().sliceMetadata(), e.getValue().sliceData());
            }
            java.util.Arrays.fill(gradient, 0f);
            long end = System.nanoTime() + config.computeNanos();
            double total = 0;
            int dim = config.dimension();
            do {
                for (ByteBuffer shard : rows) {
                    for (int r = 0; r < config.fetchRows(); r++) {
                        double d = FetchReply.dot(shard, r, activation);
                        total += d;
                        int at = shard.position() + Float.BYTES * r * dim;
                        for (int c = 0; c < dim; c++) {
                            gradient[c] += (float) (d * shard.getFloat(at + Float.BYTES * c));
                        }
                    }
                }
            } while (System.nanoTime() - end < 0);
            sink = total;
            float max = 0;
            for (float g : gradient) {
                max = Math.max(max, Math.abs(g));
            }
            // a synthetic gradient in [0.1, 0.2]: big enough that lr * g always moves a float row
            for (int c = 0; c < dim; c++) {
                gradient[c] = 0.1f + 0.1f * (max == 0 ? 0 : Math.abs(gradient[c]) / max);
            }
            return Boolean.TRUE;
        } finally {
            answers.values().forEach(Payload::release);
        }
    }

    private void checkReply(int shard, Payload p) {
        int got = FetchReply.count(p.sliceMetadata(), p.sliceData());
        int dimension = FetchReply.dimension(p.sliceMetadata(), p.sliceData());
        if (got != config.fetchRows() || dimension != config.dimension()) {
            throw new IllegalStateException("shard " + shard + " answered " + got + " rows of " + dimension
                    + " floats to a fetch of " + config.fetchRows() + " of " + config.dimension()
                    + "; do the shards' --dim and the trainer's agree?");
        }
    }

    private Mono<Void> pushAll() {
        int count = shards.size();
        float[] g = gradient;
        return Flux.range(0, count).flatMap(s -> {
            int rows = Math.min(config.rowsPerShard(), PushBatch.rowsFitting(sizes.next(), config.dimension()));
            int first = random.nextInt(config.rowsPerShard() - rows + 1);
            rowsPushed.addAndGet(rows);
            return channels[s].push(PushBatch.encodeRange(alloc, config.dimension(), (long) first * count + s, count, rows,
                    (r, c) -> g[c]));
        }, count).timeout(config.deadline()).then();
    }

    /** Gradient rows pushed so far (all shards). */
    public long rowsPushed() {
        return rowsPushed.get();
    }

    /** Steps completed so far. */
    public long steps() {
        return steps.get();
    }

    /** Completes every push stream (a push still waiting fails). */
    @Override
    public void close() {
        for (PushChannel c : channels) {
            if (c != null) {
                c.close();
            }
        }
    }
}
