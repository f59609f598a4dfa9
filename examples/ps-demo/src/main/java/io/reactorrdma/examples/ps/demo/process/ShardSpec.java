package io.reactorrdma.examples.ps.demo.process;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What every shard replica is started with: its table's size, the provider, the host it binds and,
 * for shm, the directory this demo's processes meet in. {@link #arguments} turns it into
 * {@code ShardMain}'s options.
 *
 * @param rows      rows per shard
 * @param dimension floats per row
 * @param provider  {@code shm} or {@code disni}
 * @param host      the address the replicas bind (127.0.0.1 on one host)
 * @param shmDir    the shm directory (null for disni)
 */
public record ShardSpec(int rows, int dimension, String provider, String host, Path shmDir) {

    /** {@code ShardMain}'s options for shard {@code index} of {@code count}; port 0 lets it pick one. */
    public List<String> arguments(int index, int count, int rdmaPort, int tcpPort) {
        List<String> a = new ArrayList<>(List.of(
                "--index", Integer.toString(index), "--count", Integer.toString(count),
                "--rows", Integer.toString(rows), "--dim", Integer.toString(dimension),
                "--rdma-port", Integer.toString(rdmaPort), "--tcp-port", Integer.toString(tcpPort),
                "--host", host, "--provider", provider));
        if (shmDir != null) {
            a.add("--shm-dir");
            a.add(shmDir.toString());
        }
        return a;
    }
}
