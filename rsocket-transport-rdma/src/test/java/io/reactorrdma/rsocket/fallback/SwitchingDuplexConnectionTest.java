package io.reactorrdma.rsocket.fallback;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.exceptions.Exceptions;
import io.rsocket.exceptions.RejectedException;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.KeepAliveFrameCodec;
import io.rsocket.frame.LeaseFrameCodec;
import io.rsocket.frame.PayloadFrameCodec;
import io.rsocket.frame.RequestNFrameCodec;
import io.rsocket.frame.RequestResponseFrameCodec;
import io.rsocket.frame.RequestStreamFrameCodec;
import io.rsocket.frame.SetupFrameCodec;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The switching connection's frame routing on two scripted connections: which connection each
 * sent frame goes to, which received frames reach RSocket, the SETUP replay, the drain, the
 * frames that end streams whose connection closed, and that every frame is released once.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SwitchingDuplexConnectionTest {

    private static final ByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;
    private final List<ByteBuf> made = new ArrayList<>();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final List<String> returns = new CopyOnWriteArrayList<>();
    private final AtomicReference<Throwable> receiveError = new AtomicReference<>();
    /** The request counts of the LEASE frames that reached RSocket, in order. */
    private final BlockingQueue<Integer> leasesReceived = new LinkedBlockingQueue<>();
    private final Scripted tcp = new Scripted("tcp");
    private final Scripted rdma = new Scripted("rdma");

    private SwitchingDuplexConnection switching(Duration drain) {
        SwitchingDuplexConnection s = new SwitchingDuplexConnection(tcp, drain, (from, to) -> returns.add(from + "->" + to));
        s.receive().subscribe(f -> {
            received.add(describe(f));
            if (FrameHeaderCodec.nativeFrameType(f) == FrameType.LEASE) {
                leasesReceived.add(LeaseFrameCodec.numRequests(f));
            }
        }, receiveError::set);
        return s;
    }

    private ByteBuf made(ByteBuf frame) {
        made.add(frame);
        return frame;
    }

    private ByteBuf setup(boolean resume) {
        return setup(resume, false);
    }

    /** The SETUP of a client that honours leases. */
    private ByteBuf leasedSetup() {
        return setup(false, true);
    }

    private ByteBuf setup(boolean resume, boolean lease) {
        return made(SetupFrameCodec.encode(ALLOC, lease, 1000, 30_000,
                resume ? Unpooled.copiedBuffer(new byte[] {1, 2}) : Unpooled.EMPTY_BUFFER,
                "text/plain", "text/plain", DefaultPayload.create("setup-data")));
    }

    private ByteBuf lease(int requests) {
        return made(LeaseFrameCodec.encode(ALLOC, Integer.MAX_VALUE, requests, null));
    }

    private ByteBuf requestResponse(int id) {
        return made(RequestResponseFrameCodec.encode(ALLOC, id, false, null, Unpooled.copiedBuffer(new byte[] {1})));
    }

    private ByteBuf requestStream(int id) {
        return made(RequestStreamFrameCodec.encode(ALLOC, id, false, 8, null, Unpooled.copiedBuffer(new byte[] {1})));
    }

    private ByteBuf next(int id, boolean complete) {
        return made(PayloadFrameCodec.encode(ALLOC, id, false, complete, true, null, Unpooled.copiedBuffer(new byte[] {2})));
    }

    private ByteBuf complete(int id) {
        return made(PayloadFrameCodec.encodeComplete(ALLOC, id));
    }

    private ByteBuf keepAlive() {
        return made(KeepAliveFrameCodec.encode(ALLOC, true, 0, Unpooled.EMPTY_BUFFER));
    }

    private static String describe(ByteBuf f) {
        return FrameHeaderCodec.nativeFrameType(f) + "@" + FrameHeaderCodec.streamId(f);
    }

    @AfterEach
    void everyFrameReleasedOnce() {
        tcp.sent.forEach(ByteBuf::release);
        rdma.sent.forEach(ByteBuf::release);
        for (int i = 0; i < made.size(); i++) {
            assertThat(made.get(i).refCnt()).as("references left on frame " + i).isZero();
        }
    }

    @Test
    void routesByStreamAndReplaysTheSetupThenClosesTheOldConnectionWhenItsStreamsEnded() {
        SwitchingDuplexConnection s = switching(Duration.ofSeconds(30));
        ByteBuf setup = setup(false);
        byte[] setupBytes = ByteBufUtil.getBytes(setup);
        s.sendFrame(0, setup);
        s.sendFrame(1, requestResponse(1));
        s.sendFrame(3, requestStream(3));
        assertThat(tcp.sentTypes()).containsExactly("SETUP@0", "REQUEST_RESPONSE@1", "REQUEST_STREAM@3");

        assertThat(s.switchTo(rdma)).isTrue();
        assertThat(returns).hasSize(1);
        assertThat(rdma.sentTypes()).as("the SETUP went first on the new connection").containsExactly("SETUP@0");
        assertThat(ByteBufUtil.getBytes(rdma.sent.get(0))).as("the replayed SETUP").isEqualTo(setupBytes);
        assertThat(s.current()).isSameAs(rdma);
        assertThat(s.drainingConnections()).isEqualTo(1);

        s.sendFrame(5, requestResponse(5)); // a new stream: the new connection
        s.sendFrame(3, made(RequestNFrameCodec.encode(ALLOC, 3, 16))); // an old stream: where it started
        s.sendFrame(0, keepAlive()); // stream 0: the current connection, and a copy to the draining one
        assertThat(rdma.sentTypes()).containsExactly("SETUP@0", "REQUEST_RESPONSE@5", "KEEPALIVE@0");
        assertThat(tcp.sentTypes()).containsExactly("SETUP@0", "REQUEST_RESPONSE@1", "REQUEST_STREAM@3", "REQUEST_N@3", "KEEPALIVE@0");

        tcp.emit(keepAlive()); // stream 0 of the draining connection: dropped
        rdma.emit(keepAlive());
        tcp.emit(next(1, true)); // ends stream 1
        // the server opens 2 on rdma
        rdma.emit(made(RequestResponseFrameCodec.encode(ALLOC, 2, false, null, Unpooled.copiedBuffer(new byte[] {3}))));
        // and on tcp: id taken
        tcp.emit(made(RequestResponseFrameCodec.encode(ALLOC, 2, false, null, Unpooled.copiedBuffer(new byte[] {4}))));
        assertThat(received).containsExactly("KEEPALIVE@0", "PAYLOAD@1", "REQUEST_RESPONSE@2");
        assertThat(tcp.sentTypes()).as("the colliding request is rejected where it came from").endsWith("ERROR@2");
        assertThat(Exceptions.from(2, tcp.sent.get(tcp.sent.size() - 1))).isInstanceOf(RejectedException.class);

        tcp.emit(next(3, false));
        assertThat(tcp.isDisposed()).as("stream 3 still runs on tcp").isFalse();
        tcp.emit(complete(3));
        assertThat(received).containsExactly("KEEPALIVE@0", "PAYLOAD@1", "REQUEST_RESPONSE@2", "PAYLOAD@3", "PAYLOAD@3");
        assertThat(tcp.isDisposed()).as("closed once its last stream ended").isTrue();
        assertThat(s.drainingConnections()).isZero();
        assertThat(s.isDisposed()).isFalse();
        // settled on rdma: frames pass straight through, nothing is tracked any more
        assertThat(s.openStreams()).isZero();
        s.sendFrame(7, requestStream(7));
        rdma.emit(next(7, false));
        assertThat(rdma.sentTypes()).endsWith("REQUEST_STREAM@7");
        assertThat(received).endsWith("PAYLOAD@7");
        assertThat(s.openStreams()).isZero();

        s.dispose();
        assertThat(rdma.isDisposed()).isTrue();
        assertThat(s.onClose().block(Duration.ofSeconds(5))).isNull();
        assertThat(receiveError.get()).isInstanceOf(ClosedChannelException.class);
    }

    @Test
    void streamsLeftOnAClosedDrainingConnectionEndWithAnErrorOrACancel() {
        SwitchingDuplexConnection s = switching(Duration.ofSeconds(30));
        s.sendFrame(0, setup(false));
        s.sendFrame(1, requestResponse(1)); // ours: the answer is pending
        tcp.emit(requestStream(2)); // the server's: we still send
        assertThat(s.switchTo(rdma)).isTrue();
        tcp.dispose(); // closes under them
        assertThat(received).containsExactly("REQUEST_STREAM@2", "ERROR@1", "CANCEL@2");
        assertThat(s.isDisposed()).as("the current connection goes on").isFalse();
        s.dispose();
    }

    @Test
    void theDrainTimeoutClosesTheOldConnection() {
        SwitchingDuplexConnection s = switching(Duration.ofMillis(100));
        s.sendFrame(0, setup(false));
        s.sendFrame(1, requestStream(1));
        assertThat(s.switchTo(rdma)).isTrue();
        assertThat(tcp.onClose().block(Duration.ofSeconds(10))).isNull();
        assertThat(received).containsExactly("ERROR@1");
        s.dispose();
    }

    @Test
    void theCurrentConnectionsFailureClosesEverythingWithItsCause() {
        SwitchingDuplexConnection s = switching(Duration.ofSeconds(30));
        s.sendFrame(0, setup(false));
        s.sendFrame(1, requestStream(1));
        assertThat(s.switchTo(rdma)).isTrue();
        ClosedChannelException cause = new ClosedChannelException();
        rdma.fail(cause);
        assertThat(s.isDisposed()).isTrue();
        assertThat(tcp.isDisposed()).as("the draining connection closes too").isTrue();
        Throwable closed = s.onClose().then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(Duration.ofSeconds(5));
        assertThat(closed).isSameAs(cause);
        assertThat(receiveError.get()).isSameAs(cause);
        s.sendFrame(3, requestResponse(3)); // after the close: released, sent nowhere
        assertThat(rdma.sentTypes()).containsExactly("SETUP@0");
    }

    @Test
    void doesNotSwitchBeforeTheSetupNorWithResumption() {
        SwitchingDuplexConnection s = switching(Duration.ofSeconds(30));
        assertThat(s.switchTo(rdma)).as("no SETUP yet").isFalse();
        assertThat(rdma.isDisposed()).isTrue();
        s.sendFrame(0, setup(true));
        Scripted other = new Scripted("other");
        assertThat(s.switchTo(other)).as("resumption enabled").isFalse();
        assertThat(other.isDisposed()).isTrue();
        assertThat(s.current()).isSameAs(tcp);
        s.dispose();
    }

    /**
     * With leases, new requests stay on the old connection while the client has requests of its
     * lease there (RSocket counted them under it); the new connection's LEASE is kept meanwhile and
     * handed to RSocket, from another thread, once the request that used the old lease up is sent.
     */
    @Test
    void withLeasesNewRequestsStayOnTheOldConnectionUntilItsLeaseIsUsedUp() throws InterruptedException {
        SwitchingDuplexConnection s = switching(Duration.ofSeconds(30));
        s.sendFrame(0, leasedSetup());
        tcp.emit(lease(2));
        s.sendFrame(1, requestStream(1));
        assertThat(s.switchTo(rdma)).isTrue();
        assertThat(rdma.sentTypes()).as("the SETUP replayed").containsExactly("SETUP@0");
        assertThat(s.current()).as("no lease of the new connection yet").isSameAs(tcp);

        rdma.emit(lease(5));
        assertThat(received).as("the new connection's lease is kept: the client still has one request of the old")
                .containsExactly("LEASE@0");
        s.sendFrame(0, keepAlive()); // the new connection gets a copy, so that the server keeps it meanwhile
        s.sendFrame(3, requestResponse(3)); // counted under the old lease: the old connection, and the lease is used up
        assertThat(tcp.sentTypes()).containsExactly("SETUP@0", "REQUEST_STREAM@1", "KEEPALIVE@0", "REQUEST_RESPONSE@3");
        assertThat(rdma.sentTypes()).containsExactly("SETUP@0", "KEEPALIVE@0");
        assertThat(s.current()).as("moved once the old lease was used up").isSameAs(rdma);
        assertThat(returns).hasSize(1);
        assertThat(leasesReceived.poll(20, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(leasesReceived.poll(20, TimeUnit.SECONDS)).as("the kept lease, handed to RSocket").isEqualTo(5);

        s.sendFrame(5, requestResponse(5)); // counted under the new lease: the new connection
        assertThat(rdma.sentTypes()).endsWith("REQUEST_RESPONSE@5");
        assertThat(s.drainingConnections()).isEqualTo(1);
        tcp.emit(next(3, true));
        tcp.emit(complete(1));
        assertThat(tcp.isDisposed()).as("closed once its last stream ended").isTrue();
        s.dispose();
    }

    @Test
    void withLeasesTheNewConnectionsLeaseMovesAtOnceWhenTheOldLeaseIsUsedUp() {
        SwitchingDuplexConnection s = switching(Duration.ofSeconds(30));
        s.sendFrame(0, leasedSetup());
        tcp.emit(lease(1));
        s.sendFrame(1, requestResponse(1)); // the old lease is used up
        assertThat(s.switchTo(rdma)).isTrue();
        assertThat(s.current()).isSameAs(tcp);
        s.sendFrame(3, requestResponse(3)); // RSocket would not send it without a lease: the transport does not move it either
        assertThat(tcp.sentTypes()).endsWith("REQUEST_RESPONSE@3");

        rdma.emit(lease(3));
        assertThat(s.current()).isSameAs(rdma);
        assertThat(received).containsExactly("LEASE@0", "LEASE@0");
        assertThat(returns).hasSize(1);
        s.sendFrame(5, requestResponse(5));
        assertThat(rdma.sentTypes()).containsExactly("SETUP@0", "REQUEST_RESPONSE@5");
        tcp.emit(next(1, true));
        tcp.emit(next(3, true));
        assertThat(tcp.isDisposed()).isTrue();
        s.dispose();
    }

    @Test
    void withLeasesANewConnectionThatClosesBeforeTheMoveIsDroppedAndTheSessionStays() {
        SwitchingDuplexConnection s = switching(Duration.ofSeconds(30));
        s.sendFrame(0, leasedSetup());
        tcp.emit(lease(2));
        assertThat(s.switchTo(rdma)).isTrue();
        rdma.emit(lease(4)); // kept
        rdma.emit(requestStream(2)); // the server's request on the new connection: delivered, its stream tracked there
        rdma.dispose();
        assertThat(received).as("the kept lease never reaches RSocket; the server's stream is cancelled")
                .containsExactly("LEASE@0", "REQUEST_STREAM@2", "CANCEL@2");
        assertThat(s.current()).isSameAs(tcp);
        assertThat(s.isDisposed()).isFalse();
        s.sendFrame(1, requestResponse(1));
        s.sendFrame(3, requestResponse(3));
        assertThat(tcp.sentTypes()).containsExactly("SETUP@0", "REQUEST_RESPONSE@1", "REQUEST_RESPONSE@3");
        assertThat(returns).isEmpty();
        s.dispose();
        assertThat(tcp.isDisposed()).isTrue();
    }

    /** A connection whose inbound the test writes; it keeps what is sent to it. */
    @Test
    void aProbeThatConnectedJustBeforeDisposeDoesNotSwitchAndItsConnectionIsClosed() {
        tcp.closesLater = true;
        SwitchingDuplexConnection s = switching(Duration.ofSeconds(30));
        s.sendFrame(0, setup(false));
        s.dispose(); // the TCP connection closes asynchronously: its onClose has not fired yet

        assertThat(s.switchTo(rdma)).as("switched after dispose()").isFalse();
        assertThat(rdma.sent).as("no SETUP replayed on the probe's connection").isEmpty();
        assertThat(rdma.isDisposed()).as("the probe's connection is closed").isTrue();
        assertThat(s.current()).isSameAs(tcp);
        assertThat(s.isDisposed()).isTrue();

        tcp.finishClose();
        assertThat(s.onClose().block(Duration.ofSeconds(5))).as("closed when the TCP connection closed").isNull();
        assertThat(returns).isEmpty();
    }

    private static final class Scripted implements DuplexConnection {
        final List<ByteBuf> sent = new CopyOnWriteArrayList<>();
        private final String name;
        private final Sinks.Many<ByteBuf> inbound = Sinks.many().unicast().onBackpressureBuffer();
        private final Sinks.Empty<Void> closed = Sinks.empty();
        private volatile boolean disposed;

        Scripted(String name) {
            this.name = name;
        }

        /** Delivers a frame, then drops the transport's reference, as the real transports do. */
        void emit(ByteBuf frame) {
            inbound.tryEmitNext(frame).orThrow();
            frame.release();
        }

        void fail(Throwable cause) {
            disposed = true;
            inbound.tryEmitError(cause);
            closed.tryEmitError(cause);
        }

        List<String> sentTypes() {
            return sent.stream().map(SwitchingDuplexConnectionTest::describe).toList();
        }

        @Override
        public void sendFrame(int streamId, ByteBuf frame) {
            if (isDisposed()) {
                frame.release();
            } else {
                sent.add(frame);
            }
        }

        @Override
        public void sendErrorAndClose(RSocketErrorException e) {
            dispose();
        }

        @Override
        public Flux<ByteBuf> receive() {
            return inbound.asFlux();
        }

        @Override
        public ByteBufAllocator alloc() {
            return ALLOC;
        }

        @Override
        public SocketAddress remoteAddress() {
            return InetSocketAddress.createUnresolved(name, 1);
        }

        @Override
        public Mono<Void> onClose() {
            return closed.asMono();
        }

        /** Whether {@link #dispose()} leaves the close to {@link #finishClose()} (as TCP closes on its event loop). */
        volatile boolean closesLater;

        @Override
        public void dispose() {
            disposed = true;
            if (!closesLater) {
                finishClose();
            }
        }

        void finishClose() {
            inbound.tryEmitError(new ClosedChannelException());
            closed.tryEmitEmpty();
        }

        @Override
        public boolean isDisposed() {
            return disposed;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
