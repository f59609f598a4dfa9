package io.reactorrdma.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.RdmaConnection;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.frame.ErrorFrameCodec;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;

/**
 * RSocket's {@link DuplexConnection} over one reactor-rdma connection: one RSocket frame is one
 * RDMA message, so frames need no length prefix. Frames sent from {@link #alloc()} live in
 * registered memory and go without a copy; received frames are the registered buffers they
 * arrived in and stay valid until their reference count reaches zero: the transport drops its
 * reference after {@code onNext}, so a frame RSocket retains lives on.
 */
public final class RdmaDuplexConnection implements DuplexConnection {

    /** RSocket frames carry their length in 24 bits: the transports never claim more. */
    static final int RSOCKET_FRAME_LENGTH_LIMIT = 0xFF_FFFF;

    private final RdmaConnection connection;
    private final Flux<ByteBuf> inbound;
    private final Mono<Void> onClose;
    private final int pressureLimit;
    private final RoomSignal room = new RoomSignal(this::watchQueue);
    /** The engine tells this connection when it sent: from the first time a waiter needed it on. */
    private volatile boolean queueWatched;

    public RdmaDuplexConnection(RdmaConnection connection) {
        this.connection = connection;
        this.pressureLimit = 64;
        this.inbound = ReleaseAfterNext.endingClosed(connection.inbound().receive(), room::signal);
        this.onClose = connection.onDispose().then(Mono.defer(() -> {
            Throwable failure = connection.failure();
            return failure == null ? Mono.<Void>empty() : Mono.<Void>error(ReleaseAfterNext.closed(failure));
        }));
    }

    /** RSocket sends push-style; its REQUEST_N is the flow control, {@link #availability()} reports pressure. */
    @Override
    public void sendFrame(int streamId, ByteBuf frame) {
        connection.sendNow(frame);
    }

    @Override
    public void sendErrorAndClose(RSocketErrorException error) {
        ByteBuf frame = ErrorFrameCodec.encode(alloc(), 0, error);
        connection.sendNow(frame);
        connection.dispose(); // graceful: the error frame goes first
    }

    /**
     * The frames, in order; each is released after {@code onNext} returns (RSocket retains what it
     * keeps), as Reactor Netty's inbound does. Ends with {@link ClosedChannelException} when the connection closes
     * (RSocket expects the receive stream to end with an error then), carrying the cause when the
     * peer failed.
     */
    @Override
    public Flux<ByteBuf> receive() {
        return inbound;
    }

    @Override
    public ByteBufAllocator alloc() {
        return connection.alloc();
    }

    @Override
    public SocketAddress remoteAddress() {
        return connection.remoteAddress();
    }

    /** 1.0 while nothing waits to be sent, falling towards 0 as frames queue behind the engine. */
    @Override
    public double availability() {
        room.introduce();
        if (connection.isDisposed()) {
            return 0.0;
        }
        int queued = connection.queuedMessages();
        return queued == 0 ? 1.0 : Math.max(0.0, 1.0 - (double) queued / pressureLimit);
    }

    /** Signals when {@link #availability()} may have risen: the queue drained below its limit, or a lease was handled. */
    public RoomSignal roomSignal() {
        return room;
    }

    private void watchQueue() {
        if (!queueWatched) {
            queueWatched = true;
            connection.sentListener(this::sent);
        }
    }

    /** I/O thread: the engine sent frames. */
    private void sent() {
        // pairs with a waiter's arm-then-look: either it sees the room, or this sees it armed
        VarHandle.fullFence();
        if (room.armed() && connection.queuedMessages() < pressureLimit) {
            room.signal();
        }
    }

    /** This side's receive window in frames: see {@link RdmaConnection#receiveWindow()}. */
    public int receiveWindow() {
        return connection.receiveWindow();
    }

    /**
     * Frames the peer may still send before this side grants more (0 once closed): see
     * {@link RdmaConnection#receiveHeadroom()}. Any thread, allocation-free.
     */
    public int receiveHeadroom() {
        return connection.isDisposed() ? 0 : connection.receiveHeadroom();
    }

    /**
     * Completes when the connection closes normally; errors with a {@link ClosedChannelException}
     * whose cause names the peer and the reason when it failed (a dead peer, a protocol error).
     * RSocket answers requests made after that with this error.
     */
    @Override
    public Mono<Void> onClose() {
        return onClose;
    }

    @Override
    public void dispose() {
        connection.dispose();
    }

    @Override
    public boolean isDisposed() {
        return connection.isDisposed();
    }

    @Override
    public String toString() {
        return "RdmaDuplexConnection{" + connection.peer() + "}";
    }
}
