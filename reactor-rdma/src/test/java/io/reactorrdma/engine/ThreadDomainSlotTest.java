package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A thread domain's engine slots come back whatever way an engine ends. */
class ThreadDomainSlotTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    /**
     * A peer that disconnects between the accept and the engine's registration: its failure reaches
     * the I/O thread before the registration does. The slot it took must come back, or a domain
     * loses one engine of its {@code maxEnginesPerThread} per such peer until it refuses everyone.
     */
    @Test
    @Timeout(120)
    void aPeerThatDisconnectsBeforeRegistrationGivesItsSlotBack() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "slot-test");
            t.setDaemon(true);
            return t;
        });
        VerbsContext clientCtx = SoftContext.openLoopback(SoftConfig.defaults());
        VerbsContext serverCtx = SoftContext.openLoopback(SoftConfig.defaults());
        RegisteredAllocator clientMemory = new RegisteredAllocator(clientCtx.allocPd());
        RegisteredAllocator serverMemory = new RegisteredAllocator(serverCtx.allocPd());
        ThreadDomain client = new ThreadDomain("client-io", clientCtx, clientMemory, EngineConfig.defaults(),
                IdleStrategy.BLOCK, 8, threads);
        ThreadDomain server = new ThreadDomain("server-io", serverCtx, serverMemory, EngineConfig.defaults(),
                IdleStrategy.BLOCK, 1, threads);
        CmListener listener = serverCtx.listen(new InetSocketAddress("127.0.0.1", 0), 4);
        try {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    ConnectionRequest r = listener.poll(WAIT);
                    server.accept(new DisconnectedOnAccept(r), s -> { });
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, threads);
            CompletableFuture<EngineSocket> opened = client.openSocket(listener.localAddress(), WAIT);
            accepted.get(60, TimeUnit.SECONDS);
            // the client connected, or failed because the server's engine went down at once: either way the server is done with it
            opened.handle((s, e) -> null).get(60, TimeUnit.SECONDS);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!server.hasRoom() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(server.hasRoom()).as("the one-engine domain has its slot back after the engine failed before registering").isTrue();
        } finally {
            listener.close();
            client.close();
            server.close();
            clientMemory.close();
            serverMemory.close();
            clientCtx.close();
            serverCtx.close();
            threads.shutdownNow();
        }
    }

    /** A request whose connection is already gone when the accept returns (as if the peer died right after). */
    private record DisconnectedOnAccept(ConnectionRequest request) implements ConnectionRequest {
        @Override
        public ByteBuffer privateData() {
            return request.privateData();
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return request.remoteAddress();
        }

        @Override
        public CmConnection accept(QueuePair qp, ByteBuffer privateData) {
            CmConnection real = request.accept(qp, privateData);
            real.disconnect();
            return new CmConnection() {
                @Override
                public QueuePair qp() {
                    return real.qp();
                }

                @Override
                public InetSocketAddress localAddress() {
                    return real.localAddress();
                }

                @Override
                public InetSocketAddress remoteAddress() {
                    return real.remoteAddress();
                }

                @Override
                public ByteBuffer remotePrivateData() {
                    return real.remotePrivateData();
                }

                @Override
                public CompletableFuture<String> onDisconnect() {
                    return CompletableFuture.completedFuture("the peer disconnected before the engine registered");
                }

                @Override
                public boolean isConnected() {
                    return false;
                }

                @Override
                public void disconnect() {
                    real.disconnect();
                }

                @Override
                public void close() {
                    real.close();
                }
            };
        }

        @Override
        public void reject(ByteBuffer privateData) {
            request.reject(privateData);
        }
    }
}
