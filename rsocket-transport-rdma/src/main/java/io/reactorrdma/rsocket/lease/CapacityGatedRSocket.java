package io.reactorrdma.rsocket.lease;

import io.reactorrdma.rsocket.RoomSignal;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.RejectedException;
import io.rsocket.util.RSocketProxy;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A requester that starts a request only when its connection has room ({@code availability() > 0}:
 * frames are not piling up in the transport, and, with leases, a lease has requests left), in
 * arrival order. Until then the request waits here, unsent, and its caller's {@code Mono}/{@code Flux}
 * does not complete — so a caller that bounds its concurrency is held at the connection's pace.
 * A request cancelled while it waits releases its payload. See {@link CapacityGate}.
 *
 * <p>Waiting costs no timer when the connection is one of this project's: its {@link RoomSignal}
 * (found the first time the availability is asked) wakes the waiters when the RDMA queue drains,
 * a lease is handled or the connection switches. Only another transport's connection, which cannot
 * say when it has room, is re-checked every poll interval.
 */
final class CapacityGatedRSocket extends RSocketProxy {

    private static final Logger LOG = Loggers.getLogger(CapacityGatedRSocket.class);

    private final Scheduler timer;
    private final long pollNanos;
    private final int maxWaiting;
    /**
     * Nothing here locks: requests start on their callers' threads, which may be a transport's
     * I/O thread (a handler calling out), and admit() runs on the timer.
     */
    private final ConcurrentLinkedQueue<MonoSink<Void>> waiting = new ConcurrentLinkedQueue<>();
    /** Requests in {@link #waiting} (its size() counts them one by one). */
    private final AtomicInteger waitingCount = new AtomicInteger();
    /** A poll is scheduled and has not started; cleared by it first, so a later wait schedules another. */
    private final AtomicBoolean pollScheduled = new AtomicBoolean();
    /** A wake-up is scheduled and has not started; cleared by it first. */
    private final AtomicBoolean wakeScheduled = new AtomicBoolean();
    /** Built once: arming and waking allocate nothing. */
    private final Runnable wakeTask = this::wake;
    private final Runnable admitTask = () -> {
        wakeScheduled.set(false);
        admit();
    };
    private final Runnable pollTask = () -> {
        pollScheduled.set(false);
        admit();
    };
    /** The connection's signal, once found (null: a transport that has none, or not asked yet). */
    private volatile RoomSignal signal;
    private volatile boolean signalSought;
    /** One thread admits at a time (admitting runs the request). */
    private final AtomicBoolean admitting = new AtomicBoolean();

    CapacityGatedRSocket(RSocket source, Scheduler timer, long pollNanos, int maxWaiting) {
        super(source);
        this.timer = timer;
        this.pollNanos = pollNanos;
        this.maxWaiting = maxWaiting;
        source.onClose().subscribe(null, e -> failWaiting(e), () -> failWaiting(new ClosedChannelException()));
    }

    @Override
    public Mono<Void> fireAndForget(Payload payload) {
        return gated(payload, () -> source.fireAndForget(payload));
    }

    @Override
    public Mono<Payload> requestResponse(Payload payload) {
        return gated(payload, () -> source.requestResponse(payload));
    }

    @Override
    public Flux<Payload> requestStream(Payload payload) {
        return gatedFlux(payload, () -> source.requestStream(payload));
    }

    @Override
    public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
        return room().thenMany(Flux.defer(() -> source.requestChannel(payloads)));
    }

    @Override
    public Mono<Void> metadataPush(Payload payload) {
        return gated(payload, () -> source.metadataPush(payload));
    }

    /**
     * The request, started once there is room; its payload released if it never starts. Starting
     * and giving up (cancel, rejection, close) race for the payload: whichever claims it first
     * owns it, so it is handed to RSocket or released, never both.
     */
    private <T> Mono<T> gated(Payload payload, Supplier<Mono<T>> request) {
        return Mono.defer(() -> {
            AtomicBoolean claimed = new AtomicBoolean();
            return room()
                    .then(Mono.defer(() -> claimed.compareAndSet(false, true) ? request.get() : Mono.<T>empty()))
                    .doFinally(signal -> releaseUnlessClaimed(claimed, payload));
        });
    }

    private Flux<Payload> gatedFlux(Payload payload, Supplier<Flux<Payload>> request) {
        return Flux.defer(() -> {
            AtomicBoolean claimed = new AtomicBoolean();
            return room()
                    .thenMany(Flux.defer(() -> claimed.compareAndSet(false, true) ? request.get() : Flux.<Payload>empty()))
                    .doFinally(signal -> releaseUnlessClaimed(claimed, payload));
        });
    }

    private static void releaseUnlessClaimed(AtomicBoolean claimed, Payload payload) {
        if (claimed.compareAndSet(false, true) && payload.refCnt() > 0) {
            payload.release();
        }
    }

    /** Completes when this request may go: at once if nothing waits and there is room, else in turn. */
    private Mono<Void> room() {
        return Mono.create(sink -> {
            if (waiting.isEmpty() && !admitting.get() && hasRoom()) {
                sink.success();
                return;
            }
            if (waitingCount.incrementAndGet() > maxWaiting) {
                waitingCount.decrementAndGet();
                sink.error(new RejectedException(maxWaiting + " requests already wait for room on " + source
                        + "; bound the callers' concurrency (e.g. flatMap(..., n)) or raise CapacityGate maxWaiting"));
                return;
            }
            waiting.add(sink);
            sink.onCancel(() -> {
                if (waiting.remove(sink)) {
                    waitingCount.decrementAndGet();
                }
            });
            admit(); // room may have come since the look above; else this arms the wake-up
        });
    }

    private boolean hasRoom() {
        if (source.isDisposed()) {
            return true;
        }
        if (!signalSought) {
            signalSought = true;
            return RoomSignal.availability(source, found -> signal = found) > 0.0;
        }
        return source.availability() > 0.0;
    }

    /**
     * Lets waiting requests go, one at a time, while there is room; each is sent before room is
     * looked at again. When requests are left waiting it arms the wake-up and looks once more: room
     * that came after that look signals.
     */
    private void admit() {
        while (admitting.compareAndSet(false, true)) {
            try {
                while (!waiting.isEmpty() && hasRoom()) {
                    MonoSink<Void> next = waiting.poll();
                    if (next != null) {
                        waitingCount.decrementAndGet();
                        next.success(); // runs the request on this thread: its frame is queued (or its lease used) before the next look
                    }
                }
            } catch (RuntimeException | Error e) {
                admitting.set(false);
                scheduleAdmit(); // the requests still waiting go on without this one
                throw e;
            }
            admitting.set(false);
            if (waiting.isEmpty()) {
                return; // a request that comes later admits itself
            }
            awaitRoom();
            if (!hasRoom()) {
                return;
            }
        }
    }

    /** Asks to be woken when room may have come: by the connection's signal, or, for a transport without one, by the timer. */
    private void awaitRoom() {
        RoomSignal s = signal;
        if (s != null) {
            s.whenRoom(wakeTask);
        } else if (pollScheduled.compareAndSet(false, true)) {
            timer.schedule(pollTask, pollNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Room may have come (any thread, possibly an I/O thread): admits on the timer's thread, not the signaller's. */
    private void wake() {
        if (!waiting.isEmpty()) {
            scheduleAdmit();
        }
    }

    private void scheduleAdmit() {
        if (wakeScheduled.compareAndSet(false, true)) {
            timer.schedule(admitTask);
        }
    }

    private void failWaiting(Throwable cause) {
        java.util.List<MonoSink<Void>> failed = new java.util.ArrayList<>();
        MonoSink<Void> s;
        while ((s = waiting.poll()) != null) {
            waitingCount.decrementAndGet();
            failed.add(s);
        }
        if (!failed.isEmpty()) {
            LOG.debug("{} requests waiting for room on {} fail: it closed", failed.size(), source);
        }
        failed.forEach(f -> f.error(cause));
    }
}
