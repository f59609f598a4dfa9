package io.reactorrdma.examples.ps.ranker;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.examples.ps.wire.FetchReply;
import io.reactorrdma.examples.ps.wire.FetchRequest;
import io.reactorrdma.rsocket.shard.CallOptions;
import io.reactorrdma.rsocket.fanout.FanOut;
import io.rsocket.Payload;
import io.rsocket.core.RSocketClient;
import io.rsocket.util.ByteBufPayload;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The inference side of a parameter server: {@link #rank(long)} evaluates {@link RankerConfig#models()}
 * models for one user; each model fetches its block of rows from EVERY shard in parallel with
 * {@link FanOut#requestResponse} under the config's deadline (fail-fast: a shard the shard client
 * could not recover fails the request), then scores the sum of the rows' dot products with the
 * user's vector ({@link #userVector}). Fetches are idempotent ({@link CallOptions#idempotent()}), so
 * a replicated shard client may retry and hedge them. Many {@code rank} calls may be outstanding at
 * once; the instance is thread-safe. Every reply is released, also on error and cancel.
 *
 * <p>Shard {@code s} of the map must be the shard of index {@code s} (key {@code k} lives on shard
 * {@code k % shards.size()}). Requests are written with the allocator given: on RDMA the client's
 * registered allocator, so a request is sent without a copy.
 */
public final class Ranker {

    private final Map<Integer, ? extends RSocketClient> shards;
    private final RankerConfig config;
    private final FetchObserver observer;
    private final ByteBufAllocator alloc;
    private final CallOptions options;
    private final AtomicLong fetches = new AtomicLong();

    /** A ranker writing requests with {@link ByteBufAllocator#DEFAULT}. */
    public Ranker(Map<Integer, ? extends RSocketClient> shards, RankerConfig config, FetchObserver observer) {
        this(shards, config, observer, ByteBufAllocator.DEFAULT);
    }

    /** A ranker writing requests with {@code alloc}. */
    public Ranker(Map<Integer, ? extends RSocketClient> shards, RankerConfig config, FetchObserver observer, ByteBufAllocator alloc) {
        this.shards = Map.copyOf(Objects.requireNonNull(shards, "shards"));
        this.config = Objects.requireNonNull(config, "config");
        this.observer = Objects.requireNonNull(observer, "observer");
        this.alloc = Objects.requireNonNull(alloc, "alloc");
        for (int s = 0; s < shards.size(); s++) {
            if (!shards.containsKey(s)) {
                throw new IllegalArgumentException("the shards must be numbered 0.." + (shards.size() - 1)
                        + " (key k lives on shard k % count); got "
                        + shards.keySet());
            }
        }
        this.options = CallOptions.idempotent().timeout(config.deadline());
    }

    /** The user's vector: {@code dimension} floats uniform in [-0.5, 0.5), a pure function of the seed and the id. */
    public static float[] userVector(long seed, long userId, int dimension) {
        SplittableRandom r = new SplittableRandom(seed ^ (userId * 0xBF58476D1CE4E5B9L));
        float[] v = new float[dimension];
        for (int c = 0; c < dimension; c++) {
            v[c] = (float) (r.nextDouble() - 0.5);
        }
        return v;
    }

    /** Evaluates every model for {@code userId}; each subscription fetches again. */
    public Mono<RankResult> rank(long userId) {
        return Mono.defer(() -> {
            float[] user = userVector(config.seed(), userId, config.dimension());
            double[] scores = new double[config.models()];
            AtomicLong bytes = new AtomicLong();
            return Flux.range(0, config.models())
                    .flatMap(m -> score(userId, m, user).doOnNext(s -> {
                        scores[m] = s[0];
                        bytes.addAndGet((long) s[1]);
                    }), config.models())
                    .then(Mono.fromSupplier(() -> new RankResult(userId, scores, config.models() * shards.size(), bytes.get())));
        });
    }

    /** Shard fetches sent so far (attempts a shard client adds are not counted). */
    public long fetches() {
        return fetches.get();
    }

    /** {score, reply bytes} of one model. */
    private Mono<double[]> score(long userId, int model, float[] user) {
        int rows = config.rowsOf(userId, model);
        int count = shards.size();
        return Mono.defer(() -> {
            long start = System.nanoTime();
            return FanOut.requestResponse(shards, shard -> {
                        fetches.incrementAndGet();
                        long first = (long) config.firstRowOf(userId, model, shard) * count + shard;
                        return ByteBufPayload.create(FetchRequest.encodeRange(alloc, first, count, rows));
                    }, config.deadline())
                    .map(answers -> {
                        double[] result = sum(answers, rows, user);
                        observer.onFetch(System.nanoTime() - start, (long) result[1]);
                        return result;
                    });
        }).contextWrite(options);
    }

    private double[] sum(Map<Integer, Payload> answers, int rows, float[] user) {
        double score = 0;
        long bytes = 0;
        RuntimeException failure = null;
        for (Map.Entry<Integer, Payload> e : answers.entrySet()) {
            Payload p = e.getValue();
            try {
                if (failure == null) {
                    ByteBuf meta = p.sliceMetadata();
                    ByteBuf data = p.sliceData();
                    bytes += meta.readableBytes() + data.readableBytes();
                    int got = FetchReply.count(meta, data);
                    if (got != rows || FetchReply.dimension(meta, data) != user.length) {
                        throw new IllegalStateException("shard " + e.getKey() + " answered " + got + " rows of "
                                + FetchReply.dimension(meta, data)
                                + " floats to a fetch of " + rows + " rows of " + user.length
                                + "; do the shards' --dim and the ranker's agree?");
                    }
                    java.nio.ByteBuffer view = FetchReply.rows(meta, data);
                    for (int r = 0; r < rows; r++) {
                        score += FetchReply.dot(view, r, user);
                    }
                }
            } catch (RuntimeException ex) {
                failure = ex;
            } finally {
                p.release();
            }
        }
        if (failure != null) {
            throw failure;
        }
        return new double[]{score, bytes};
    }
}
