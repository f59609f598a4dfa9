package io.reactorrdma.examples.ps.demo.process;

import java.net.InetSocketAddress;

/** Where each replica of each shard serves: the demo's own child processes, or replicas started by hand ({@code --hosts}). */
public interface ShardAddresses {

    /** Shards. */
    int shards();

    /** Replicas per shard. */
    int replicas();

    /** The RDMA address of one replica. */
    InetSocketAddress rdma(int shard, int replica);

    /** The TCP address of one replica. */
    InetSocketAddress tcp(int shard, int replica);
}
