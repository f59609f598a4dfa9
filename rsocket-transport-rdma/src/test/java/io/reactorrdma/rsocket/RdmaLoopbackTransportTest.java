package io.reactorrdma.rsocket;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.engine.IdleStrategy;
import io.rsocket.test.TransportTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.net.InetSocketAddress;
import java.time.Duration;

/** RSocket's own transport conformance suite, plain variant, over the in-JVM fabric. */
class RdmaLoopbackTransportTest implements TransportTest {

    static RdmaResources server;
    static RdmaResources client;

    @BeforeAll
    static void resources() {
        server = RdmaResources.builder("rsocket-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        client = RdmaResources.builder("rsocket-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
    }

    @AfterAll
    static void dispose() {
        client.dispose();
        server.dispose();
    }

    private final TransportPair<InetSocketAddress, RdmaServerTransport.Bound> transportPair = new TransportPair<>(
            () -> new InetSocketAddress("127.0.0.1", 0),
            (address, bound, allocator) -> RdmaClientTransport.create(
                    RdmaClient.create().host("127.0.0.1").port(bound.address().getPort()).runOn(client), client),
            (address, allocator) -> RdmaServerTransport.create(RdmaServer.create().host("127.0.0.1").port(0).runOn(server), server),
            false, false);

    @Override
    public Duration getTimeout() {
        return Duration.ofMinutes(2);
    }

    @Override
    public TransportPair getTransportPair() {
        return transportPair;
    }
}
