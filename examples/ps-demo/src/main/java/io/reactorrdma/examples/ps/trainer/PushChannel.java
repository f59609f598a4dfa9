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
import java.util.concurrent.atomic.AtomicReference;

/**
 * One long-lived push stream (request-channel) to one shard: batches go out in order, the shard
 * answers each with a {@link PushAck} in the same order, and each {@link #push} completes with its
 * ack. When the stream fails, every waiting push and every later one fails with the cause.
 *
 * <p>One caller pushes at a time (a trainer's steps do not overlap). Acks arrive on the
 * connection's I/O thread, which takes no lock here: the waiting pushes are a lock-free queue.
 */
final class PushChannel {

    private final int shard;
    private final PushObserver observer;
    private final Sinks.Many<Payload> out = Sinks.many().unicast().onBackpressureBuffer();
    /** Pushes sent and not yet acked, oldest first. */
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

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
            Sinks.EmitResult result = out.tryEmitNext(ByteBufPayload.create(batch));
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
        out.tryEmitComplete();
        onError(failure.get());
    }
}
