package io.reactorrdma.rsocket.lease;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The flood tests' client: {@code offered} fire-and-forgets, numbered from 0 in their first four
 * bytes, from {@code callers} concurrent callers, as fast as the requester lets them out.
 */
final class FireAndForgetFlood implements Disposable {

    /** Fire-and-forgets that completed (went out), and their numbers. */
    final AtomicLong sent = new AtomicLong();
    final Queue<Integer> sentSeqs = new ConcurrentLinkedQueue<>();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Disposable flood;

    private FireAndForgetFlood(RSocket client, ByteBufAllocator alloc, int offered, int callers, int payloadBytes) {
        flood = Flux.range(0, offered)
                .flatMap(i -> {
                    ByteBuf data = alloc.directBuffer(payloadBytes);
                    data.writeInt(i).writeZero(payloadBytes - 4);
                    return client.fireAndForget(ByteBufPayload.create(data)).doOnSuccess(v -> {
                        sentSeqs.add(i);
                        sent.incrementAndGet();
                    });
                }, callers)
                .subscribe(null, failure::set);
    }

    static FireAndForgetFlood start(RSocket client, ByteBufAllocator alloc, int offered, int callers, int payloadBytes) {
        return new FireAndForgetFlood(client, alloc, offered, callers, payloadBytes);
    }

    /** Samples {@code queuedBytes} every 2 ms for {@code duration}; the highest value seen. */
    static long peakOver(Duration duration, LongSupplier queuedBytes) {
        long peak = 0;
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            peak = Math.max(peak, queuedBytes.getAsLong());
            LockSupport.parkNanos(2_000_000);
        }
        return peak;
    }

    @Override
    public void dispose() {
        flood.dispose();
    }

    @Override
    public boolean isDisposed() {
        return flood.isDisposed();
    }
}
