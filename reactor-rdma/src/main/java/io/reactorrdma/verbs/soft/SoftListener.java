package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** A listener of either fabric: incoming requests wait in a queue of the backlog's size. */
class SoftListener implements CmListener {

    final SoftContext context;
    final InetSocketAddress localAddress;
    private final BlockingQueue<ConnectionRequest> requests;
    private final Runnable onClose;
    private volatile boolean closed;

    SoftListener(SoftContext context, InetSocketAddress localAddress, int backlog, Runnable onClose) {
        this.context = context;
        this.localAddress = localAddress;
        this.requests = new ArrayBlockingQueue<>(backlog);
        this.onClose = onClose;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** Queues a request; false when the backlog is full or the listener closed. */
    boolean offer(ConnectionRequest request) {
        return !closed && requests.offer(request);
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public ConnectionRequest poll(Duration timeout) throws InterruptedException {
        if (closed) {
            throw new IllegalStateException("listener on " + localAddress + " is closed");
        }
        return requests.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        onClose.run();
        ConnectionRequest r;
        while ((r = requests.poll()) != null) {
            try {
                r.reject(ByteBuffer.allocate(0));
            } catch (RuntimeException ignored) {
                // the requester may have given up already
            }
        }
        context.removeListener(this);
    }

    @Override
    public String toString() {
        return "CmListener{" + context.fabric.name() + " " + localAddress + (closed ? ", closed" : "") + "}";
    }
}
