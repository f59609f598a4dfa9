package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.reactorrdma.config.IdleStrategy;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The Reactive Streams TCK's publisher rules for {@link RdmaConnection#receive()} (TestNG, run by
 * the JUnit Platform's testng-engine). A publisher of n elements is the server side of a fresh
 * connection whose client sends n messages and closes. The elements are released as they pass
 * (the TCK's subscribers do not), so the allocator ends with no live buffer. Streams are kept
 * short ({@link #maxElementsFromPublisher}): the rules that need more are skipped. Signals must
 * come within 3 s (the rules on bad requests wait that long whatever the publisher); the checks
 * that nothing comes wait 100 ms.
 */
public class RdmaReceiveTckTest extends PublisherVerification<ByteBuf> {

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private DisposableRdmaServer server;
    private final BlockingQueue<RdmaConnection> accepted = new LinkedBlockingQueue<>();

    public RdmaReceiveTckTest() {
        super(new TestEnvironment(3_000, 100, 3_000), 1_000);
    }

    @BeforeClass
    public void start() {
        serverResources = RdmaResources.builder("tck-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("tck-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = RdmaServer.create().port(0).runOn(serverResources)
                .handleConnection(c -> {
                    accepted.add(c);
                    return Mono.never(); // a handler that ends disposes its connection, releasing what it did not read
                })
                .bindNow();
    }

    @AfterClass(alwaysRun = true)
    public void stop() {
        server.disposeNow(Duration.ofSeconds(10));
        clientResources.dispose();
        serverResources.dispose();
        if (clientResources.allocator().liveBuffers() != 0 || serverResources.allocator().liveBuffers() != 0) {
            throw new AssertionError("live buffers after close: client " + clientResources.allocator().liveBuffers()
                    + ", server " + serverResources.allocator().liveBuffers());
        }
    }

    @Override
    public long maxElementsFromPublisher() {
        return 256;
    }

    @Override
    public Publisher<ByteBuf> createPublisher(long elements) {
        RdmaConnection client = RdmaClient.create().port(server.port()).runOn(clientResources).connectNow();
        RdmaConnection serverSide;
        try {
            serverSide = accepted.poll(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (serverSide == null) {
            throw new IllegalStateException("the server did not accept the connection within 30 s");
        }
        client.outbound().send(Flux.range(0, (int) elements).map(i -> client.alloc().directBuffer(4).writeInt(i)))
                .then()
                .onErrorResume(e -> Mono.empty())
                .doFinally(s -> client.dispose())
                .subscribe();
        return serverSide.receive().doOnNext(ReferenceCountUtil::release);
    }

    @Override
    public Publisher<ByteBuf> createFailedPublisher() {
        return null; // a connection cannot be made to fail before it is subscribed: the rules for it are skipped
    }
}
