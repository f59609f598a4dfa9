package io.reactorrdma.rsocket.shard;

import io.rsocket.Payload;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.util.annotation.Nullable;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * One attempt of a hedged request-response: the primary copy starts at once; if it has not
 * answered after the hedge delay a second copy starts (when the supplier gives one); the first
 * answer wins and the other copy is cancelled (RSocket sends CANCEL, so the replica drops it).
 * An answer that arrives after the winner is released, and so is one handed over as the caller
 * cancels (the cancelled sink discards it, and the discard hook releases it). The attempt fails only when every copy
 * that started has failed, with the first failure; a primary that fails before the hedge is due
 * fails the attempt at once (the retry decides what comes next).
 */
final class HedgedRace {

    private static final Logger LOG = Loggers.getLogger(HedgedRace.class);

    // state bits; the copies started and not yet ended count in the bits above them (IN_FLIGHT each)
    private static final int DONE = 1;           // the attempt has its verdict
    private static final int HEDGE_PENDING = 2;  // the hedge timer has not fired yet
    private static final int IN_FLIGHT = 4;

    private final MonoSink<Payload> sink;
    private final Disposable.Composite running = Disposables.composite();
    private final Runnable onHedgeWon;
    /**
     * DONE, HEDGE_PENDING and the copies in flight, changed by compare-and-set: answers and failures
     * arrive on the transport's I/O threads and the hedge timer on its scheduler, so nothing here
     * locks (a monitor held while the caller's chain ran would stall the other threads).
     */
    private final AtomicInteger state = new AtomicInteger(HEDGE_PENDING | IN_FLIGHT);
    /** The first failure of a copy; set once, before the state change that may report it. */
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();

    private HedgedRace(MonoSink<Payload> sink, Runnable onHedgeWon) {
        this.sink = sink;
        this.onHedgeWon = onHedgeWon;
    }

    /**
     * @param hedge gives the second copy when the delay has passed, or null when none may go
     *              (no other live replica, or the hedge cap is reached)
     */
    static Mono<Payload> race(Mono<Payload> primary, Duration delay, Supplier<Mono<Payload>> hedge, Runnable onHedgeWon,
                              Scheduler timer) {
        return Mono.<Payload>create(sink -> {
            HedgedRace race = new HedgedRace(sink, onHedgeWon);
            sink.onDispose(race.running);
            race.start(primary, false);
            race.running.add(timer.schedule(() -> race.timerFired(hedge), delay.toNanos(), TimeUnit.NANOSECONDS));
        }).doOnDiscard(Payload.class, Payload::release); // an answer handed over as the caller cancels is dropped by the sink: release it
    }

    private void start(Mono<Payload> copy, boolean isHedge) {
        running.add(copy.subscribe(p -> won(p, isHedge), this::failed, () -> won(null, isHedge)));
    }

    private void timerFired(Supplier<Mono<Payload>> hedge) {
        for (;;) {
            int s = state.get();
            if ((s & DONE) != 0 || (s & HEDGE_PENDING) == 0) {
                return;
            }
            if (state.compareAndSet(s, (s & ~HEDGE_PENDING) + IN_FLIGHT)) {
                break;
            }
        }
        Mono<Payload> copy;
        try {
            copy = hedge.get();
        } catch (RuntimeException e) {
            // counted in flight above: end it, or the attempt would wait for a copy that never started
            LOG.warn("the hedge of a slow call could not be made; the call waits for its first copy", e);
            copy = null;
        }
        if (copy == null) {
            ended(null);
        } else {
            start(copy, true);
        }
    }

    private void won(@Nullable Payload payload, boolean isHedge) {
        if (!finish()) {
            if (payload != null) {
                payload.release(); // a late answer of the losing copy
            }
            return;
        }
        if (isHedge) {
            onHedgeWon.run();
        }
        if (payload == null) {
            sink.success();
        } else {
            sink.success(payload);
        }
    }

    /** Sets DONE; false when the attempt had its verdict already. */
    private boolean finish() {
        for (;;) {
            int s = state.get();
            if ((s & DONE) != 0) {
                return false;
            }
            if (state.compareAndSet(s, (s & ~HEDGE_PENDING) | DONE)) {
                return true;
            }
        }
    }

    private void failed(Throwable error) {
        ended(error);
    }

    private void ended(@Nullable Throwable error) {
        if (error != null) {
            firstError.compareAndSet(null, error);
        }
        for (;;) {
            int s = state.get();
            if ((s & DONE) != 0) {
                return;
            }
            int left = s - IN_FLIGHT;
            if (left >= IN_FLIGHT || ((left & HEDGE_PENDING) != 0 && firstError.get() == null)) {
                if (state.compareAndSet(s, left)) {
                    return; // a copy still runs, or the hedge may still go
                }
                continue;
            }
            // nothing left running: a pending hedge is not worth waiting for after a failure
            if (state.compareAndSet(s, (left & ~HEDGE_PENDING) | DONE)) {
                break;
            }
        }
        Throwable fail = firstError.get();
        sink.error(fail != null ? fail : new IllegalStateException("no copy of the request could be sent"));
    }
}
