/**
 * Training: a {@link io.reactorrdma.examples.ps.trainer.Trainer} loops fetch → synthetic
 * forward/backward (real CPU) → push one gradient batch to every shard over a long-lived push
 * stream per shard, sized by {@link io.reactorrdma.examples.ps.trainer.PushSizes} (the paper's
 * training workload: mean ≈ 20 KB, p99 ≈ 50 KB). Many trainers against few shards make the incast
 * the engine's send window exists for. {@link io.reactorrdma.examples.ps.trainer.TrainerMain} runs
 * trainers as a process.
 */
package io.reactorrdma.examples.ps.trainer;
