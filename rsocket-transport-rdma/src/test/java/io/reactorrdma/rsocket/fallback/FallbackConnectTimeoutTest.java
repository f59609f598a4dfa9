package io.reactorrdma.rsocket.fallback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.transport.ClientTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection that arrives as the RDMA connect timeout fires: the transport had already handed it
 * over (its cancel came too late), so the fallback transport must close it, not drop it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FallbackConnectTimeoutTest {

    @Test
    void anRdmaConnectionArrivingAfterTheConnectTimeoutFiredIsClosed() {
        AtomicReference<Subscriber<? super DuplexConnection>> pending = new AtomicReference<>();
        // a connect whose cancel cannot stop it any more: it delivers whatever happens downstream
        ClientTransport rdma = () -> Mono.fromDirect(s -> {
            s.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                }

                @Override
                public void cancel() {
                }
            });
            pending.set(s);
        });
        Fake tcpConnection = new Fake("tcp");
        ClientTransport tcp = () -> Mono.just(tcpConnection);
        DuplexConnection connected = FallbackClientTransport.builder(rdma, tcp)
                .rdmaConnectTimeout(Duration.ofMillis(50)).totalConnectTimeout(Duration.ofSeconds(20))
                .firstProbeDelay(Duration.ofHours(1)).probeInterval(Duration.ofHours(1))
                .meterRegistry(new SimpleMeterRegistry()).build()
                .connect().block(Duration.ofSeconds(20));
        try {
            assertThat(connected).as("fell back to TCP after the RDMA connect timed out").isNotNull();
            assertThat(pending.get()).isNotNull();

            Fake late = new Fake("rdma");
            pending.get().onNext(late); // arrives after the timeout fired (the fallback already happened)
            pending.get().onComplete();
            assertThat(late.isDisposed()).as("the late RDMA connection is closed").isTrue();
        } finally {
            connected.dispose();
        }
        assertThat(tcpConnection.isDisposed()).isTrue();
    }

    @Test
    void aConnectThatCannotReachTcpEitherIsNotCountedAsAFallback() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ClientTransport rdma = () -> Mono.error(new io.reactorrdma.verbs.ProviderUnavailableException("no RDMA here"));
        ClientTransport tcp = () -> Mono.error(new java.net.ConnectException("connection refused"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FallbackClientTransport.builder(rdma, tcp).meterRegistry(meters).build()
                .connect().block(Duration.ofSeconds(20))).hasMessageContaining("connection refused");
        assertThat(meters.find("rdma.fallbacks").counters().stream().mapToDouble(c -> c.count()).sum())
                .as("rdma.fallbacks after a connect that reached neither RDMA nor TCP").isZero();

        Fake tcpConnection = new Fake("tcp");
        DuplexConnection fellBack = FallbackClientTransport.builder(rdma, () -> Mono.just(tcpConnection)).meterRegistry(meters)
                .firstProbeDelay(Duration.ofHours(1)).probeInterval(Duration.ofHours(1)).build().connect().block(Duration.ofSeconds(20));
        fellBack.dispose();
        assertThat(meters.find("rdma.fallbacks").tag("cause", "ProviderUnavailableException").counter().count())
                .as("a connect that went over TCP is a fallback").isEqualTo(1.0);
    }

    /** A connection that only knows whether it was closed. */
    private static final class Fake implements DuplexConnection {
        private final String name;
        private final Sinks.Empty<Void> closed = Sinks.empty();
        private volatile boolean disposed;

        Fake(String name) {
            this.name = name;
        }

        @Override
        public void sendFrame(int streamId, ByteBuf frame) {
            frame.release();
        }

        @Override
        public void sendErrorAndClose(RSocketErrorException e) {
            dispose();
        }

        @Override
        public Flux<ByteBuf> receive() {
            return Flux.never();
        }

        @Override
        public ByteBufAllocator alloc() {
            return UnpooledByteBufAllocator.DEFAULT;
        }

        @Override
        public SocketAddress remoteAddress() {
            return InetSocketAddress.createUnresolved(name, 1);
        }

        @Override
        public Mono<Void> onClose() {
            return closed.asMono();
        }

        @Override
        public void dispose() {
            disposed = true;
            closed.tryEmitEmpty();
        }

        @Override
        public boolean isDisposed() {
            return disposed;
        }
    }
}
