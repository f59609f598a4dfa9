package io.reactorrdma.examples.ps.demo;

import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.examples.ps.ranker.Ranker;
import io.reactorrdma.examples.ps.ranker.RankerConfig;
import io.reactorrdma.examples.ps.wire.PushAck;
import io.reactorrdma.examples.ps.wire.PushBatch;
import io.reactorrdma.rsocket.recovery.ShardClient;
import io.rsocket.Payload;
import io.rsocket.util.ByteBufPayload;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Map;
import java.util.SplittableRandom;

/** The demo's units of work over the shard clients: a user request (inference) and a trainer step (training). */
final class Workloads {

    static final long SEED = 42;

    private Workloads() {
    }

    /** A user request: the applications' {@link Ranker#rank} of user {@code n}, the same users in every arm. */
    static final class Inference implements Lanes.Unit {
        private final Ranker ranker;

        Inference(Ranker ranker) {
            this.ranker = ranker;
        }

        @Override
        public Mono<?> start(int lane, long n) {
            return ranker.rank(n);
        }
    }

    /** Trainer steps: per lane, compute then push one batch to every shard and wait for the acks. */
    static final class Training implements Lanes.Unit, AutoCloseable {
        private final Map<Integer, ShardClient> shards;
        private final int dimension;
        private final int rows;
        private final Recorder pushes;

        Training(Map<Integer, ShardClient> shards, int dimension, int rows, Recorder pushes) {
            this.shards = shards;
            this.dimension = dimension;
            this.rows = rows;
            this.pushes = pushes;
        }

        @Override
        public Mono<?> start(int lane, long n) {
            SplittableRandom random = new SplittableRandom(SEED * 31 + n);
            double size = Math.exp(9.833 + 0.434 * gaussian(random));
            int count = Math.max(1, Math.min(rows, (int) (size / (dimension * Float.BYTES))));
            int first = random.nextInt(rows - count + 1);
            int shardCount = shards.size();
            return Flux.fromIterable(shards.entrySet()).flatMap(e -> {
                long t0 = System.nanoTime();
                Payload push = ByteBufPayload.create(PushBatch.encodeRange(ByteBufAllocator.DEFAULT, dimension,
                        e.getKey() + (long) first * shardCount, shardCount, count, (r, c) -> 1e-6f));
                long bytes = push.data().readableBytes();
                return e.getValue().requestChannel(Mono.just(push)).take(1).doOnNext(ack -> {
                    try {
                        PushAck.decode(ack.data());
                    } finally {
                        ack.release();
                    }
                    pushes.record(System.nanoTime() - t0, bytes);
                });
            }).then();
        }

        private static double gaussian(SplittableRandom r) {
            double u = Math.max(1e-12, r.nextDouble());
            return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble());
        }

        @Override
        public void close() {
        }
    }

    /**
     * User requests over {@code shards}: a {@link Ranker} with the default {@link RankerConfig} (its
     * seed, so the same rows in every arm) on the demo's table size, writing its requests with
     * {@code alloc} (on RDMA the registered allocator), its fetches seen by {@code fetches}.
     */
    static Inference inference(Map<Integer, ShardClient> shards, ByteBufAllocator alloc, Recorder fetches) {
        RankerConfig config = RankerConfig.defaults().withDimension(DemoRun.DEFAULT_DIMENSION).withRowsPerShard(DemoRun.DEFAULT_ROWS);
        return new Inference(new Ranker(shards, config, fetches::record, alloc));
    }

    static Training training(Map<Integer, ShardClient> shards, int trainers, int dimension, Recorder pushes) {
        return new Training(shards, dimension, DemoRun.DEFAULT_ROWS, pushes);
    }
}
