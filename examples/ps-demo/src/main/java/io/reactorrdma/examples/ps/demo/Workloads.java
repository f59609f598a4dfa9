package io.reactorrdma.examples.ps.demo;

import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.examples.ps.wire.FetchReply;
import io.reactorrdma.examples.ps.wire.FetchRequest;
import io.reactorrdma.examples.ps.wire.PushAck;
import io.reactorrdma.examples.ps.wire.PushBatch;
import io.reactorrdma.rsocket.recovery.CallOptions;
import io.reactorrdma.rsocket.recovery.FanOut;
import io.reactorrdma.rsocket.recovery.ShardClient;
import io.rsocket.Payload;
import io.rsocket.util.ByteBufPayload;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;

/** The demo's units of work over the shard clients: a user request (inference) and a trainer step (training). */
final class Workloads {

    /** Models evaluated per user request. */
    static final int MODELS = 2;
    /** Smallest and largest fetch reply per shard: 4 KiB to 1 MiB. */
    static final int MIN_REPLY = 4 * 1024;
    static final int MAX_REPLY = 1024 * 1024;
    static final Duration ATTEMPT = Duration.ofSeconds(10);
    static final Duration DEADLINE = Duration.ofSeconds(30);
    static final long SEED = 42;

    private Workloads() {
    }

    /** A user request: {@link #MODELS} fan-out fetches, each scored with a dot product. */
    static final class Inference implements Lanes.Unit {
        private final Map<Integer, ShardClient> shards;
        private final int dimension;
        private final Recorder fetches;
        private final int rows;

        Inference(Map<Integer, ShardClient> shards, int dimension, int rows, Recorder fetches) {
            this.shards = shards;
            this.dimension = dimension;
            this.rows = rows;
            this.fetches = fetches;
        }

        @Override
        public Mono<?> start(int lane, long n) {
            SplittableRandom random = new SplittableRandom(SEED + n);
            float[] user = new float[dimension];
            for (int i = 0; i < dimension; i++) {
                user[i] = (float) random.nextDouble(-1, 1);
            }
            return Flux.range(0, MODELS).concatMap(m -> fetch(random.split(), user)).then();
        }

        private Mono<Double> fetch(SplittableRandom random, float[] user) {
            int count = shards.size();
            double logMin = Math.log(MIN_REPLY);
            int bytes = (int) Math.exp(logMin + random.nextDouble() * (Math.log(MAX_REPLY) - logMin));
            int n = Math.max(1, Math.min(rows, bytes / (dimension * Float.BYTES)));
            int first = random.nextInt(rows - n + 1);
            long t0 = System.nanoTime();
            return FanOut.requestResponse(shards, s -> ByteBufPayload.create(
                            FetchRequest.encodeRange(ByteBufAllocator.DEFAULT, s + (long) first * count, count, n)), DEADLINE)
                    .contextWrite(CallOptions.idempotent().timeout(ATTEMPT))
                    .map(answers -> {
                        long size = 0;
                        double score = 0;
                        try {
                            for (Payload p : answers.values()) {
                                size += p.data().readableBytes();
                                for (int r = 0; r < FetchReply.count(p.data()); r++) {
                                    score += FetchReply.dot(p.data(), r, user);
                                }
                            }
                        } finally {
                            answers.values().forEach(Payload::release);
                        }
                        fetches.record(System.nanoTime() - t0, size);
                        return score;
                    });
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

    static Inference inference(Map<Integer, ShardClient> shards, int dimension, Recorder fetches) {
        return new Inference(shards, dimension, DemoRun.DEFAULT_ROWS, fetches);
    }

    static Training training(Map<Integer, ShardClient> shards, int trainers, int dimension, Recorder pushes) {
        return new Training(shards, dimension, DemoRun.DEFAULT_ROWS, pushes);
    }
}
