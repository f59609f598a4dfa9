package io.reactorrdma.rsocket.lease;

import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import io.rsocket.frame.FrameType;
import io.rsocket.lease.Lease;
import io.rsocket.lease.TrackingLeaseSender;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * One server connection's side of {@link ReceiveCapacityLeases}: the leases RSocket sends on it,
 * and, as RSocket's request interceptor for that connection, when its requests start and end.
 * Its counters are guarded by the {@link ReceiveCapacity} lock.
 */
final class CapacityLeaseSender implements TrackingLeaseSender {

    private static final Logger LOG = Loggers.getLogger(CapacityLeaseSender.class);

    private final ReceiveCapacity ledger;
    private final Counter rejected;
    private final int id;
    private final Sinks.Many<Lease> leases = Sinks.many().unicast().onBackpressureBuffer();

    /** Ledger lock: requests of the current lease that have not arrived yet. */
    int remaining;
    /** Ledger lock: requests started on this connection and not yet ended. */
    int inFlight;
    /** Ledger lock: {@link #remaining} was lent to a connection holding none, so it no longer counts as granted. */
    boolean lent;
    /** Ledger lock: when it was last granted or a request of it last arrived (the ledger timer's clock). */
    long lastActivityNanos;
    /** Ledger lock: the connection closed; nothing of it counts any more. */
    boolean closed;
    private volatile boolean disposed;

    CapacityLeaseSender(ReceiveCapacity ledger, Counter rejected, int id) {
        this.ledger = ledger;
        this.rejected = rejected;
        this.id = id;
    }

    /** RSocket subscribes once, when the connection's responder starts, and cancels when it closes. */
    @Override
    public Flux<Lease> send() {
        return leases.asFlux()
                .doOnSubscribe(s -> ledger.open(this))
                .doFinally(signal -> ledger.close(this));
    }

    /** Ledger lock held: the ledger serializes emissions. */
    void emit(Lease lease) {
        leases.tryEmitNext(lease); // fails only once cancelled, when the lease no longer matters
    }

    @Override
    public void onStart(int streamId, FrameType requestType, ByteBuf metadata) {
        ledger.started(this);
    }

    @Override
    public void onTerminate(int streamId, FrameType requestType, Throwable t) {
        ledger.finished(this);
    }

    @Override
    public void onCancel(int streamId, FrameType requestType) {
        ledger.finished(this);
    }

    /** A request came without a lease: a client that ignores leases (or sends before its first one). */
    @Override
    public void onReject(Throwable rejectionReason, FrameType requestType, ByteBuf metadata) {
        rejected.increment();
        LOG.debug("{} rejected a {}: {}", this, requestType, rejectionReason.getMessage());
    }

    @Override
    public void dispose() {
        disposed = true;
        ledger.close(this);
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    @Override
    public String toString() {
        return "lease connection " + id;
    }
}
