/**
 * The parameter-server shard: {@link io.reactorrdma.examples.ps.shard.EmbeddingShard} (its rows of
 * the embedding table in one buffer of registered memory, SGD updates),
 * {@link io.reactorrdma.examples.ps.shard.ShardResponder} (fetch, push and push stream as RSocket
 * interactions), {@link io.reactorrdma.examples.ps.shard.ShardServer} (the responder on RDMA and TCP
 * at once) and {@link io.reactorrdma.examples.ps.shard.ShardMain} (a shard as a process; its command line
 * {@link io.reactorrdma.examples.ps.shard.ShardArguments}, read by picocli, with the RDMA options every example main
 * shares, {@link io.reactorrdma.examples.ps.shard.MainOptions}).
 * Key {@code k} lives on shard {@code k % count}, row {@code k / count}.
 */
package io.reactorrdma.examples.ps.shard;
