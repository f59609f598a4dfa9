package io.reactorrdma.examples.ps.trainer;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.examples.ps.wire.PushAck;
import io.rsocket.Payload;
import io.rsocket.core.RSocketClient;
import io.rsocket.util.ByteBufPayload;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;

import java.util.ArrayDeque;

/**
 * One long-lived push stream (request-channel) to one shard: batches go out in order, the shard
 * answers each with a {@link PushAck} in the same order, and each {@link #push} completes with its
 * ack. When the stream fails, every waiting push and every later one fails with the cause.
 */
final class PushChannel {

    private final int shard;
    private final PushObserver observer;
    private final Sinks.Many<Payload> out = Sinks.many().unicast().onBackpressureBuffer();
    /** Guarded by {@code this}: pushes sent and not yet acked, oldest first. */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    /** Guarded by {@code this}. */
    private Throwable failure;
    private final Disposable acks;

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
        this.acks = client.requestChannel(out.asFlux().doOnDiscard(Payload.class, Payload::release)).subscribe(this::onAck, this::onError,
                () -> onError(new IllegalStateException("the shard ended the push stream")));
    }

    /** Sends {@code batch} (taking ownership) and completes with the rows the shard updated. */
    Mono<Integer> push(ByteBuf batch) {
        return Mono.create(sink -> {
            long bytes = batch.readableBytes();
            Sinks.EmitResult result;
            synchronized (this) {
                if (failure != null) {
                    batch.release();
                    sink.error(failed(failure));
                    return;
                }
                // queued before it is sent, so its ack always finds it
                pending.add(new Pending(sink, System.nanoTime(), bytes));
                result = out.tryEmitNext(ByteBufPayload.create(batch));
            }
            if (result.isFailure()) {
                batch.release();
                onError(new IllegalStateException("the push stream refused a batch: " + result));
            }
        });
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
        Pending p;
        synchronized (this) {
            p = pending.poll();
        }
        if (p == null) {
            onError(new IllegalStateException("shard " + shard + " acked a push that was not sent"));
            return;
        }
        observer.onPush(System.nanoTime() - p.start, p.bytes);
        p.sink.success(rows);
    }

    private void onError(Throwable e) {
        Pending[] waiting;
        synchronized (this) {
            if (failure == null) {
                failure = e;
            }
            waiting = pending.toArray(new Pending[0]);
            pending.clear();
        }
        for (Pending p : waiting) {
            p.sink.error(failed(e));
        }
    }

    private IllegalStateException failed(Throwable e) {
        return new IllegalStateException("the push stream to shard " + shard + " failed: " + e.getMessage(), e);
    }

    /** Completes the outbound side; the shard then completes its side. Waiting pushes fail. */
    void close() {
        synchronized (this) {
            if (failure == null) {
                failure = new IllegalStateException("the trainer was closed");
            }
        }
        out.tryEmitComplete();
        onError(failure);
    }

    /** Cancels the stream at once (after {@link #close()} when the shard did not end it in time). */
    void dispose() {
        acks.dispose();
    }

    /** Whether the stream has ended on both sides. */
    boolean isDone() {
        return acks.isDisposed();
    }
}
