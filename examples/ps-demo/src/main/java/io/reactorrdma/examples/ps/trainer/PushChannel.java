package io.reactorrdma.examples.ps.trainer;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.examples.ps.wire.PushAck;
import io.rsocket.Payload;
import io.rsocket.core.RSocketClient;
import io.rsocket.util.ByteBufPayload;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One long-lived push stream (request-channel) to one shard: batches go out in order, the shard
 * answers each with a {@link PushAck} in the same order, and each {@link #push} completes with its
 * ack. When the stream fails, every waiting push and every later one fails with the cause.
 *
 * <p>A trainer's steps do not overlap, but two pushes can still meet: an ack completes a step on
 * the I/O thread, which starts the next step's push while the thread that sent the previous batch
 * may still be inside the sink handing it to RSocket. Reactor's sink refuses a second thread there
 * ({@code FAIL_NON_SERIALIZED}), so batches go through a queue that whichever pusher finds idle
 * drains (a work-in-progress counter: lock-free, nobody waits). Acks arrive on the connection's I/O
 * thread, which takes no lock here either: the waiting pushes are a lock-free queue.
 */
final class PushChannel {

    private final int shard;
    private final PushObserver observer;
    private final Sinks.Many<Payload> out = Sinks.many().unicast().onBackpressureBuffer();
    /** Pushes sent and not yet acked, oldest first. */
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Batches to hand to {@link #out}, in push order; drained by one pusher at a time ({@link #emitting}). */
    private final ConcurrentLinkedQueue<Payload> toEmit = new ConcurrentLinkedQueue<>();
    private final AtomicInteger emitting = new AtomicInteger();
    /** Set by {@link #close}: the drainer completes the sink after the batches queued before it. */
    private volatile boolean completing;
    private boolean completed; // only the drainer reads and writes it

    private static final class Pending {
        final MonoSink<Integer> sink;
        final long start;
        final long bytes;

        Pending(MonoSink<Integer> sink, long start, long bytes) {
            this.sink = sink;
            this.start = start;
            this.bytes = bytes;
        }
    }

    PushChannel(int shard, RSocketClient client, PushObserver observer) {
        this.shard = shard;
        this.observer = observer;
        client.requestChannel(out.asFlux().doOnDiscard(Payload.class, Payload::release)).subscribe(this::onAck, this::onError,
                () -> onError(new IllegalStateException("the shard ended the push stream")));
    }

    /** Sends {@code batch} (taking ownership) and completes with the rows the shard updated. */
    Mono<Integer> push(ByteBuf batch) {
        return Mono.create(sink -> {
            Throwable failed = failure.get();
            if (failed != null) {
                batch.release();
                sink.error(failed(failed));
                return;
            }
            // queued before it is sent, so its ack always finds it
            Pending p = new Pending(sink, System.nanoTime(), batch.readableBytes());
            pending.add(p);
            failed = failure.get();
            if (failed != null && pending.remove(p)) { // the stream failed while we queued: nobody will ack or fail it
                batch.release();
                sink.error(failed(failed));
                return;
            }
            toEmit.add(ByteBufPayload.create(batch));
            drain();
        });
    }

    /** Hands queued batches to the sink; only the pusher that took the counter from 0 emits, the others leave theirs queued for it. */
    private void drain() {
        if (emitting.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            for (Payload next = toEmit.poll(); next != null; next = toEmit.poll()) {
                Sinks.EmitResult result = out.tryEmitNext(next);
                if (result.isFailure()) {
                    next.release();
                    onError(new IllegalStateException("the push stream refused a batch: " + result));
                }
            }
            if (completing && !completed) {
                completed = true;
                out.tryEmitComplete();
            }
            missed = emitting.addAndGet(-missed);
        } while (missed != 0);
    }

    private void onAck(Payload ack) {
        int rows;
        try {
            rows = PushAck.decode(ack.sliceData());
        } catch (IllegalArgumentException e) {
            onError(e);
            return;
        } finally {
            ack.release();
        }
        Pending p = pending.poll();
        if (p == null) {
            onError(new IllegalStateException("shard " + shard + " acked a push that was not sent"));
            return;
        }
        observer.onPush(System.nanoTime() - p.start, p.bytes);
        p.sink.success(rows);
    }

    private void onError(Throwable e) {
        failure.compareAndSet(null, e);
        Throwable cause = failure.get();
        for (Pending p = pending.poll(); p != null; p = pending.poll()) {
            p.sink.error(failed(cause));
        }
    }

    private IllegalStateException failed(Throwable e) {
        return new IllegalStateException("the push stream to shard " + shard + " failed: " + e.getMessage(), e);
    }

    /** Completes the outbound side; the shard then completes its side. Waiting pushes fail. */
    void close() {
        failure.compareAndSet(null, new IllegalStateException("the trainer was closed"));
        completing = true;
        drain();
        onError(failure.get());
    }
}
