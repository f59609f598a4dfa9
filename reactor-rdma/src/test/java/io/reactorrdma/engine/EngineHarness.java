package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.VerbsContext;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/** A client and a server, each with its own context, allocator and thread domain, and a listener thread. */
final class EngineHarness implements AutoCloseable {

    final VerbsContext clientCtx;
    final VerbsContext serverCtx;
    final RegisteredAllocator clientMemory;
    final RegisteredAllocator serverMemory;
    final ThreadDomain client;
    final ThreadDomain server;
    final CmListener listener;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "engine-harness");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean running = true;

    EngineHarness(Supplier<VerbsContext> contexts, EngineConfig config, IdleStrategy idle, Consumer<EngineSocket> acceptor) {
        this(contexts, config, config, idle, acceptor);
    }

    /** Each side with its own engine configuration. */
    EngineHarness(Supplier<VerbsContext> contexts, EngineConfig clientConfig, EngineConfig serverConfig, IdleStrategy idle,
                  Consumer<EngineSocket> acceptor) {
        clientCtx = contexts.get();
        serverCtx = contexts.get();
        clientMemory = new RegisteredAllocator(clientCtx.allocPd());
        serverMemory = new RegisteredAllocator(serverCtx.allocPd());
        client = new ThreadDomain("client-io", clientCtx, clientMemory, clientConfig, idle, 8, threads);
        server = new ThreadDomain("server-io", serverCtx, serverMemory, serverConfig, idle, 8, threads);
        listener = serverCtx.listen(new InetSocketAddress("127.0.0.1", 0), 16);
        threads.execute(() -> {
            while (running) {
                try {
                    ConnectionRequest r = listener.poll(Duration.ofMillis(100));
                    if (r != null) {
                        server.accept(r, acceptor);
                    }
                } catch (InterruptedException | IllegalStateException e) {
                    return;
                }
            }
        });
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    /** An acceptor that echoes every message back on its socket (zero-copy: the received buffer is sent as is). */
    static Consumer<EngineSocket> echo() {
        return s -> s.inbound(new EngineSocket.Inbound() {
            @Override
            public void onMessage(ByteBuf message) {
                s.consumed(1);
                s.offer(message);
            }

            @Override
            public void onClose(Throwable error) {
            }
        });
    }

    @Override
    public void close() {
        running = false;
        listener.close();
        client.close();
        server.close();
        assertThat(clientMemory.liveBuffers()).as("client live buffers after close").isZero();
        assertThat(serverMemory.liveBuffers()).as("server live buffers after close").isZero();
        clientMemory.close();
        serverMemory.close();
        clientCtx.close();
        serverCtx.close();
        threads.shutdownNow();
    }
}
