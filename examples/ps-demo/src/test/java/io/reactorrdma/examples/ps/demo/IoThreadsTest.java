package io.reactorrdma.examples.ps.demo;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.examples.ps.demo.measure.ThreadNames;
import io.reactorrdma.examples.ps.demo.measure.ThreadSwitches;
import io.reactorrdma.examples.ps.shard.ShardConfig;
import io.reactorrdma.examples.ps.shard.ShardFixture;
import io.reactorrdma.examples.ps.shard.ShardMain;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The I/O-thread predicates pick the threads the engine and Reactor Netty really start, by the comm
 * Linux shows for them (cut to 15 bytes), and no other thread of this JVM.
 */
class IoThreadsTest {

    @Test
    void theShardsAndRankersPredicatesPickTheRealIoThreadsByTheirComm() {
        assumeThat(Files.isDirectory(Path.of("/proc/self/task"))).as("Linux /proc").isTrue();
        // a shard server serving RDMA (resources "ps-shards") and TCP (Reactor Netty's reactor-tcp loops)
        try (ShardFixture f = new ShardFixture(ShardConfig.of(0, 1).withRows(64).withDimension(4))) {
            RdmaResources shard1 = RdmaResources.builder(ShardMain.resourcesName(1)).provider("loopback").threads(2)
                    .idle(IdleStrategy.BLOCK).build();
            try {
                // a started thread sets its own comm (pthread_setname_np) as it begins to run: read until both
                // I/O threads show theirs (bounded), or the assertion below says which is missing
                List<String> comms = comms();
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
                while (comms.stream().filter(IoThreads.shards("rdma", 2)).count() < 2 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                    comms = comms();
                }

                assertThat(comms.stream().filter(IoThreads.shards("rdma", 2)))
                        .containsExactlyInAnyOrder("shard-1-io-0", "shard-1-io-1");
                assertThat(comms.stream().filter(IoThreads.ranker("rdma", "ps-shards"))).containsExactly("ps-shards-io-0");
                List<String> tcp = comms.stream().filter(IoThreads.shards("tcp", 2)).toList();
                assertThat(tcp).as("Reactor Netty's event loops, as Linux shows them").isNotEmpty()
                        .allSatisfy(c -> assertThat(c).startsWith("reactor-tcp-").hasSizeLessThanOrEqualTo(ThreadNames.COMM_LENGTH));
                assertThat(comms.stream().filter(IoThreads.ranker("tcp", "ps-shards"))).containsExactlyInAnyOrderElementsOf(tcp);
            } finally {
                shard1.dispose();
            }
        }
    }

    private static List<String> comms() {
        return ThreadSwitches.PROC.read("self").orElseThrow().threads().values().stream().map(ThreadSwitches.Thread::comm).toList();
    }

    @Test
    void shardPredicatesTellShardNumbersApart() {
        assertThat(IoThreads.shards("rdma", 2).test("shard-1-io-0")).isTrue();
        assertThat(IoThreads.shards("rdma", 2).test("shard-2-io-0")).isFalse();
        assertThat(IoThreads.shards("rdma", 11).test("shard-10-io-0")).isTrue();
        assertThat(IoThreads.shards("rdma", 2).test("shard-10-io-0")).isFalse();
        assertThat(IoThreads.shards("rdma", 2).test("reactor-tcp-epo")).isFalse();
        assertThat(IoThreads.shards("tcp", 2).test("shard-0-io-0")).isFalse();
        assertThat(IoThreads.shards("tcp", 2).test(ThreadNames.comm("reactor-tcp-nio-3"))).isTrue();
        assertThat(IoThreads.shards("tcp", 2).test(ThreadNames.comm("reactor-http-epoll-1"))).isFalse();
    }
}
