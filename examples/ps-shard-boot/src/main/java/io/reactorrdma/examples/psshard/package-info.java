/**
 * Example: a parameter-server shard as a Spring Boot RSocket application ({@link
 * io.reactorrdma.examples.psshard.PsShardApplication}) served over RDMA by reactor-rdma's
 * auto-configuration: an {@link io.reactorrdma.examples.psshard.EmbeddingTable} of float rows,
 * fetched by key and updated by pushed gradients ({@link io.reactorrdma.examples.psshard.ShardController}).
 */
package io.reactorrdma.examples.psshard;
