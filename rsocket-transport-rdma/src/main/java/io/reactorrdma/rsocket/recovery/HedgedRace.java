package io.reactorrdma.rsocket.recovery;

import io.rsocket.Payload;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.util.annotation.Nullable;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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

    private final MonoSink<Payload> sink;
    private final Disposable.Composite running = Disposables.composite();
    private final Runnable onHedgeWon;
    private int inFlight;          // copies started and not yet ended, guarded by this
    private boolean hedgePending;  // the hedge timer has not fired yet
    private boolean done;
    private Throwable firstError;

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
            synchronized (race) {
                race.inFlight = 1;
                race.hedgePending = true;
            }
            race.start(primary, false);
            race.running.add(timer.schedule(() -> race.timerFired(hedge), delay.toNanos(), TimeUnit.NANOSECONDS));
        }).doOnDiscard(Payload.class, Payload::release); // an answer handed over as the caller cancels is dropped by the sink: release it
    }

    private void start(Mono<Payload> copy, boolean isHedge) {
        running.add(copy.subscribe(p -> won(p, isHedge), this::failed, () -> won(null, isHedge)));
    }

    private void timerFired(Supplier<Mono<Payload>> hedge) {
        synchronized (this) {
            if (done || !hedgePending) {
                return;
            }
            hedgePending = false;
            inFlight++;
        }
        Mono<Payload> copy = hedge.get();
        if (copy == null) {
            ended(null);
        } else {
            start(copy, true);
        }
    }

    private void won(@Nullable Payload payload, boolean isHedge) {
        synchronized (this) {
            if (!done) {
                done = true;
                if (isHedge) {
                    onHedgeWon.run();
                }
                if (payload == null) {
                    sink.success();
                } else {
                    sink.success(payload);
                }
                return;
            }
        }
        if (payload != null) {
            payload.release(); // a late answer of the losing copy
        }
    }

    private void failed(Throwable error) {
        ended(error);
    }

    private void ended(@Nullable Throwable error) {
        Throwable fail;
        synchronized (this) {
            if (done) {
                return;
            }
            if (error != null && firstError == null) {
                firstError = error;
            }
            inFlight--;
            if (inFlight > 0 || (hedgePending && firstError == null)) {
                return;
            }
            // nothing left running: a pending hedge is not worth waiting for after a failure
            hedgePending = false;
            done = true;
            fail = firstError != null ? firstError : new IllegalStateException("no copy of the request could be sent");
        }
        sink.error(fail);
    }
}
