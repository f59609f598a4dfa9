package io.reactorrdma.examples.ps.demo;

import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.examples.ps.ranker.Ranker;
import io.reactorrdma.examples.ps.ranker.RankerConfig;
import io.reactorrdma.examples.ps.trainer.Trainer;
import io.reactorrdma.examples.ps.trainer.TrainerSettings;
import io.reactorrdma.rsocket.shard.ShardClient;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Map;

/** The demo's units of work over the shard clients: a user request (inference) and a trainer step (training). */
final class Workloads {

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

    /** Trainer steps: lane {@code i} runs trainer {@code i}'s {@link Trainer#step}, one after the other. */
    static final class Training implements Lanes.Unit, AutoCloseable {
        private final Trainer[] trainers;

        Training(Trainer[] trainers) {
            this.trainers = trainers;
        }

        @Override
        public Mono<?> start(int lane, long n) {
            return trainers[lane].step();
        }

        /** Completes every trainer's push streams. */
        @Override
        public void close() {
            for (Trainer t : trainers) {
                if (t != null) {
                    t.close();
                }
            }
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

    /**
     * A {@link Trainer} over each trainer's connections (the default {@link TrainerSettings} on the demo's
     * table size, {@link TrainerSettings#forTrainer} each), writing with {@code alloc}, their pushes seen by {@code pushes}.
     */
    static Training training(List<ArmConnections> perTrainer, ByteBufAllocator alloc, Recorder pushes) {
        int count = perTrainer.size();
        TrainerSettings config = TrainerSettings.defaults().withDimension(DemoRun.DEFAULT_DIMENSION).withRowsPerShard(DemoRun.DEFAULT_ROWS);
        Trainer[] trainers = new Trainer[count];
        Training training = new Training(trainers);
        try {
            for (int i = 0; i < count; i++) {
                trainers[i] = new Trainer(perTrainer.get(i).clients(), config.forTrainer(i), pushes::record, alloc);
            }
            return training;
        } catch (RuntimeException e) {
            training.close();
            throw e;
        }
    }
}
