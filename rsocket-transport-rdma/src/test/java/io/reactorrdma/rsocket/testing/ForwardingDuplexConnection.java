package io.reactorrdma.rsocket.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.net.SocketAddress;

/** A connection that passes everything to another: tests override the calls they watch. */
public abstract class ForwardingDuplexConnection implements DuplexConnection {

    protected final DuplexConnection delegate;

    protected ForwardingDuplexConnection(DuplexConnection delegate) {
        this.delegate = delegate;
    }

    @Override
    public void sendFrame(int streamId, ByteBuf frame) {
        delegate.sendFrame(streamId, frame);
    }

    @Override
    public Flux<ByteBuf> receive() {
        return delegate.receive();
    }

    @Override
    public void sendErrorAndClose(RSocketErrorException e) {
        delegate.sendErrorAndClose(e);
    }

    @Override
    public ByteBufAllocator alloc() {
        return delegate.alloc();
    }

    @Override
    public SocketAddress remoteAddress() {
        return delegate.remoteAddress();
    }

    @Override
    public double availability() {
        return delegate.availability();
    }

    @Override
    public Mono<Void> onClose() {
        return delegate.onClose();
    }

    @Override
    public void dispose() {
        delegate.dispose();
    }

    @Override
    public boolean isDisposed() {
        return delegate.isDisposed();
    }
}
