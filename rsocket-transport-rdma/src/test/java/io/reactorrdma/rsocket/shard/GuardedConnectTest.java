package io.reactorrdma.rsocket.shard;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.testing.CountingServer;
import io.reactorrdma.rsocket.testing.ForwardingDuplexConnection;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.rsocket.DuplexConnection;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import io.rsocket.transport.ClientTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link GuardedConnect} over the in-JVM loopback fabric: a cancel that lands while RSocket sets a
 * fresh RDMA connection up (its SETUP frame just sent) leaves no registered buffer live and no
 * connection open; RSocket's own connector, cancelled at that point, closes the connection but
 * leaves the SETUP frame live (the suspected leak of a replica connect whose timeout fired during
 * setup: 1 client buffer live after the resources closed).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GuardedConnectTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private Disposable server;
    private ClientTransport transport;
    private final Queue<DuplexConnection> sources = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void start() {
        serverResources = RdmaResources.builder("guarded-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("guarded-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        RdmaServerTransport.Bound bound = RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Payload> requestResponse(Payload p) {
                        String d = p.getDataUtf8();
                        p.release();
                        return Mono.just(DefaultPayload.create("re:" + d));
                    }
                }))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(WAIT);
        server = bound;
        transport = RdmaClientTransport.create(RdmaClient.create().port(bound.address().getPort()).runOn(clientResources));
    }

    @AfterEach
    void stop() {
        server.dispose();
        clientResources.dispose();
        serverResources.dispose();
        try {
            await(() -> clientResources.allocator().liveBuffers() == 0 && serverResources.allocator().liveBuffers() == 0,
                    "buffers released after the resources closed");
        } finally {
            assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
            assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
        }
    }

    /** A connector whose connection, when RSocket sends SETUP on it, first fires {@code cancel}. */
    private RSocketConnector cancellingOnSetup(Sinks.Empty<Void> cancel) {
        return RSocketConnector.create().interceptors(r -> r.forConnection((type, c) -> {
            if (type != DuplexConnectionInterceptor.Type.SOURCE) {
                return c;
            }
            sources.add(c);
            return new CancelOnSetup(c, cancel);
        }));
    }

    @Test
    void aCancelDuringSetupLeavesNoBufferAndNoConnection() {
        Sinks.Empty<Void> cancel = Sinks.empty();
        RSocket rsocket = GuardedConnect.connect(cancellingOnSetup(cancel), transport)
                .takeUntilOther(cancel.asMono())
                .block(WAIT);
        assertThat(rsocket).as("the subscriber left during setup: it gets nothing").isNull();
        assertThat(sources).as("the transport had handed a connection over").hasSize(1);
        DuplexConnection connection = sources.peek();
        await(connection::isDisposed, "the connection the subscriber never got is closed");
        // the SETUP frame (registered memory) is checked by stop(): no buffer may stay live once the
        // resources closed (RSocket's connector alone, cancelled here, leaves it live: 1 buffer)
    }

    @Test
    void aCancelBeforeTheTransportConnectedReachesTheTransport() {
        AtomicBoolean cancelled = new AtomicBoolean();
        ClientTransport hanging = () -> Mono.<DuplexConnection>never().doOnCancel(() -> cancelled.set(true));
        Disposable connecting = GuardedConnect.connect(RSocketConnector.create(), hanging).subscribe();
        connecting.dispose();
        assertThat(cancelled).as("the transport's connect was cancelled").isTrue();
    }

    @Test
    void withoutACancelItConnects() {
        RSocket rsocket = GuardedConnect.connect(RSocketConnector.create(), transport).block(WAIT);
        assertThat(rsocket).isNotNull();
        try {
            assertThat(rsocket.requestResponse(DefaultPayload.create("x")).map(CountingServer::data).block(WAIT)).isEqualTo("re:x");
        } finally {
            rsocket.dispose();
            rsocket.onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
        }
    }

    @Test
    void aFailedConnectFailsTheCall() {
        ClientTransport refusing = () -> Mono.error(new IllegalStateException("refused"));
        StepVerifier.create(GuardedConnect.connect(RSocketConnector.create(), refusing)).expectErrorMessage("refused").verify(WAIT);
    }

    private static void await(BooleanSupplier condition, String what) {
        LiveBufferWait.until(WAIT, condition, what);
    }

    /** Fires the cancel signal as RSocket sends SETUP, before passing the frame on. */
    private static final class CancelOnSetup extends ForwardingDuplexConnection {
        private final Sinks.Empty<Void> cancel;

        CancelOnSetup(DuplexConnection delegate, Sinks.Empty<Void> cancel) {
            super(delegate);
            this.cancel = cancel;
        }

        @Override
        public void sendFrame(int streamId, ByteBuf frame) {
            if (FrameHeaderCodec.frameType(frame) == FrameType.SETUP) {
                cancel.tryEmitEmpty();
            }
            delegate.sendFrame(streamId, frame);
        }
    }
}
