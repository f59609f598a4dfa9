package io.reactorrdma.rsocket.fallback;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.testing.CountingServer;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One acceptor on an RDMA port (loopback fabric) and a TCP port; both close together; a failed second bind closes the first. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaServersTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private RdmaResources resources;

    @BeforeEach
    void start() {
        resources = RdmaResources.builder("dual").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
    }

    @AfterEach
    void stop() {
        resources.dispose();
        assertThat(resources.allocator().liveBuffers()).as("live buffers").isZero();
    }

    private RdmaServerTransport rdmaTransport() {
        return RdmaServerTransport.create(RdmaServer.create().port(0).runOn(resources));
    }

    @Test
    void servesOneAcceptorOverRdmaAndTcpAndClosesBoth() {
        CountingServer counting = new CountingServer();
        DualServer server = RdmaServers.dual(counting.server(), rdmaTransport(), new InetSocketAddress("127.0.0.1", 0)).block(WAIT);
        assertThat(server.rdmaAddress().getPort()).isPositive();
        assertThat(server.tcpAddress().getPort()).isPositive();

        RSocket overRdma = RSocketConnector.connectWith(RdmaClientTransport.create(
                RdmaClient.create().port(server.rdmaAddress().getPort()).runOn(resources))).block(WAIT);
        RSocket overTcp = RSocketConnector.connectWith(TcpClientTransport.create(server.tcpAddress())).block(WAIT);
        assertThat(overRdma.requestResponse(DefaultPayload.create("r")).map(CountingServer::data).block(WAIT)).isEqualTo("re:r");
        assertThat(overTcp.requestResponse(DefaultPayload.create("t")).map(CountingServer::data).block(WAIT)).isEqualTo("re:t");
        assertThat(counting.rdmaRequests.get()).isEqualTo(1);
        assertThat(counting.tcpRequests.get()).isEqualTo(1);
        overRdma.dispose();
        overTcp.dispose();

        server.dispose();
        server.onClose().block(WAIT);
        assertThat(server.isDisposed()).isTrue();
        assertThat(server.rdmaServer().isDisposed()).isTrue();
        assertThat(server.tcpServer().isDisposed()).isTrue();
        assertThatThrownBy(() -> RSocketConnector.connectWith(TcpClientTransport.create(server.tcpAddress())).block(WAIT))
                .as("TCP no longer listens").isNotNull();
    }

    @Test
    void whenTcpCannotBindTheRdmaSideIsClosedAndTheErrorSaysSo() throws Exception {
        DualServer first = RdmaServers.dual(new CountingServer().server(), rdmaTransport(),
                new InetSocketAddress("127.0.0.1", 0)).block(WAIT);
        int rdmaPort = first.rdmaAddress().getPort();
        first.dispose();
        first.onClose().block(WAIT);
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            RdmaServerTransport rdma = RdmaServerTransport.create(RdmaServer.create().port(rdmaPort).runOn(resources));
            assertThatThrownBy(() -> RdmaServers.dual(new CountingServer().server(), rdma,
                    new InetSocketAddress("127.0.0.1", taken.getLocalPort())).block(WAIT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("binding the TCP side of the dual server failed")
                    .hasMessageContaining("the RDMA side")
                    .hasMessageContaining("was closed again");
        }
        // the RDMA port was released: the same port binds again
        DualServer again = RdmaServers.dual(new CountingServer().server(),
                RdmaServerTransport.create(RdmaServer.create().port(rdmaPort).runOn(resources)),
                new InetSocketAddress("127.0.0.1", 0)).block(WAIT);
        assertThat(again.rdmaAddress().getPort()).isEqualTo(rdmaPort);
        again.dispose();
        again.onClose().block(WAIT);
    }

    @Test
    void whenRdmaCannotBindNothingIsBoundAndTheErrorSaysSo() throws Exception {
        DualServer first = RdmaServers.dual(new CountingServer().server(), rdmaTransport(),
                new InetSocketAddress("127.0.0.1", 0)).block(WAIT);
        try {
            RdmaServerTransport samePort = RdmaServerTransport.create(RdmaServer.create().port(first.rdmaAddress().getPort())
                    .runOn(resources));
            int tcpPort;
            try (ServerSocket s = new ServerSocket(0)) {
                tcpPort = s.getLocalPort();
            }
            assertThatThrownBy(() -> RdmaServers.dual(new CountingServer().server(), samePort, new InetSocketAddress("127.0.0.1", tcpPort))
                    .block(WAIT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("binding the RDMA side of the dual server failed")
                    .hasMessageContaining("nothing was bound");
            // the TCP port was never taken
            try (ServerSocket s = new ServerSocket(tcpPort, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
                assertThat(s.getLocalPort()).isEqualTo(tcpPort);
            }
        } finally {
            first.dispose();
            first.onClose().block(WAIT);
        }
    }

    /**
     * What {@code block(timeout)} does when the dual bind takes too long: it cancels. Here the TCP
     * bind waits (its address supplier holds it) until the RDMA side is bound and the bind was
     * cancelled; then neither side may stay bound.
     */
    @Test
    void aDualBindCancelledAfterTheRdmaSideBoundLeavesNothingBound() throws Exception {
        DualServer first = RdmaServers.dual(new CountingServer().server(), rdmaTransport(),
                new InetSocketAddress("127.0.0.1", 0)).block(WAIT);
        int rdmaPort = first.rdmaAddress().getPort();
        first.dispose();
        first.onClose().block(WAIT);
        int tcpPort;
        try (ServerSocket s = new ServerSocket(0)) {
            tcpPort = s.getLocalPort();
        }
        java.util.concurrent.CountDownLatch tcpBinding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        io.rsocket.transport.netty.server.TcpServerTransport tcp = io.rsocket.transport.netty.server.TcpServerTransport.create(
                reactor.netty.tcp.TcpServer.create().bindAddress(() -> {
                    tcpBinding.countDown(); // the RDMA side is bound: the TCP side binds after it
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return new InetSocketAddress("127.0.0.1", tcpPort);
                }));
        java.util.concurrent.atomic.AtomicReference<DualServer> delivered = new java.util.concurrent.atomic.AtomicReference<>();
        reactor.core.Disposable binding = RdmaServers.dual(new CountingServer().server(),
                        RdmaServerTransport.create(RdmaServer.create().port(rdmaPort).runOn(resources)), tcp)
                .subscribe(delivered::set, e -> { });
        try {
            assertThat(tcpBinding.await(30, TimeUnit.SECONDS)).as("the TCP side started binding").isTrue();
            binding.dispose(); // the caller gave up
        } finally {
            release.countDown();
        }
        LiveBufferWait.until(WAIT, () -> bindsAgain(rdmaPort), "the RDMA port " + rdmaPort + " to be free again");
        LiveBufferWait.until(WAIT, () -> tcpBindsAgain(tcpPort), "the TCP port " + tcpPort + " to be free again");
        assertThat(delivered.get()).as("nothing delivered after the cancel").isNull();
    }

    private boolean bindsAgain(int rdmaPort) {
        try {
            RdmaServer.create().port(rdmaPort).runOn(resources).bindNow(WAIT).disposeNow(WAIT);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean tcpBindsAgain(int port) {
        try (ServerSocket s = new ServerSocket(port, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
