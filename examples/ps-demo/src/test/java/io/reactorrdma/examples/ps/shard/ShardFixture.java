package io.reactorrdma.examples.ps.shard;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shards on the loopback provider in this JVM, and the client resources to reach them: for tests.
 * {@link #close()} stops everything and asserts that neither allocator holds a live buffer.
 */
public final class ShardFixture implements AutoCloseable {

    public final SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
    public final SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
    public final RdmaResources serverResources;
    public final RdmaResources clientResources;
    public final List<ShardServer> servers = new ArrayList<>();

    /** {@code configs.length} shards, one server each. */
    public ShardFixture(ShardConfig... configs) {
        serverResources = RdmaResources.builder("ps-shards").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF)
                .metrics(serverMeters).build();
        clientResources = RdmaResources.builder("ps-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF)
                .metrics(clientMeters).build();
        try {
            for (ShardConfig c : configs) {
                servers.add(ShardServer.start(c, serverResources, new InetSocketAddress("127.0.0.1", 0),
                        new InetSocketAddress("127.0.0.1", 0)).block(Duration.ofSeconds(30)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The RDMA transport to shard {@code i}. */
    public ClientTransport rdma(int i) {
        return RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1").port(servers.get(i).rdmaPort()).runOn(clientResources));
    }

    /** The TCP transport to shard {@code i}. */
    public ClientTransport tcp(int i) {
        return TcpClientTransport.create("127.0.0.1", servers.get(i).tcpPort());
    }

    /** A counter of the given registry summed over its domains. */
    public static long counter(SimpleMeterRegistry registry, String name) {
        return (long) registry.find(name).meters().stream().mapToDouble(m -> ((FunctionCounter) m).count()).sum();
    }

    @Override
    public void close() {
        servers.forEach(ShardServer::dispose);
        servers.forEach(s -> s.onClose().block(Duration.ofSeconds(30)));
        clientResources.dispose();
        serverResources.dispose();
        // RSocket releases what it holds as its connections close, on their threads just after: wait, boundedly
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((clientResources.allocator().liveBuffers() != 0 || serverResources.allocator().liveBuffers() != 0)
                && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers (the tables included)").isZero();
    }
}
