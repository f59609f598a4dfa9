package io.reactorrdma.rsocket.fanout;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketClient;
import io.rsocket.util.ByteBufPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.test.scheduler.VirtualTimeScheduler;
import reactor.util.context.Context;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FanOut#requestResponse} when its end races the hand-over of the answers: the deadline
 * fires, or the caller cancels, after the answers were taken out of {@link FanOutAnswers} and
 * before the map reaches the caller. The race is made deterministic with an operator hook that
 * runs the competing event at the moment the map first passes an operator, on virtual time. Every
 * answer must end up either in the caller's hands or released, never neither.
 */
class FanOutHandOverTest {

    private static final String HOOK = FanOutHandOverTest.class.getName();
    private static final Duration DEADLINE = Duration.ofMillis(200);

    private final List<Payload> answers = new ArrayList<>();

    @AfterEach
    void resetHooks() {
        Hooks.resetOnEachOperator(HOOK);
        VirtualTimeScheduler.reset();
    }

    /** Three shards that answer at once, each with a fresh payload recorded in {@link #answers}. */
    private Map<Integer, RSocketClient> shards() {
        Map<Integer, RSocketClient> shards = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            int shard = i;
            shards.put(i, RSocketClient.from(new RSocket() {
                @Override
                public Mono<Payload> requestResponse(Payload request) {
                    request.release();
                    Payload answer = ByteBufPayload.create("answer " + shard);
                    answers.add(answer);
                    return Mono.just(answer);
                }
            }));
        }
        return shards;
    }

    /** Runs {@code action} once, when the hand-over (a {@code type}) first reaches an operator, before it is passed on. */
    private static void atHandOver(Class<?> type, Runnable action) {
        AtomicBoolean fired = new AtomicBoolean();
        Hooks.onEachOperator(HOOK, Operators.<Object, Object>lift((scannable, actual) -> new CoreSubscriber<Object>() {
            @Override
            public Context currentContext() {
                return actual.currentContext();
            }

            @Override
            public void onSubscribe(Subscription s) {
                actual.onSubscribe(s);
            }

            @Override
            public void onNext(Object value) {
                if (type.isInstance(value) && fired.compareAndSet(false, true)) {
                    action.run();
                }
                actual.onNext(value);
            }

            @Override
            public void onError(Throwable t) {
                actual.onError(t);
            }

            @Override
            public void onComplete() {
                actual.onComplete();
            }
        }));
    }

    /** The caller's end: releases what it receives, records how the call ended. */
    private static final class Caller extends BaseSubscriber<Map<Integer, Payload>> {
        final AtomicReference<Object> outcome = new AtomicReference<>();

        @Override
        protected void hookOnNext(Map<Integer, Payload> value) {
            value.values().forEach(Payload::release);
            outcome.set(value.keySet());
        }

        @Override
        protected void hookOnError(Throwable t) {
            outcome.set(t);
        }
    }

    private void assertEveryAnswerReleased() {
        assertThat(answers).as("every shard answered").hasSize(3);
        for (Payload p : answers) {
            assertThat(p.refCnt()).as("answer %s: delivered and released by the caller, or released by the fan-out", p).isZero();
        }
    }

    @Test
    void aDeadlineThatFiresAsTheAnswersAreHandedOverLosesNoAnswer() {
        VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
        Mono<Map<Integer, Payload>> call = FanOut.requestResponse(shards(), shard -> ByteBufPayload.create("q" + shard), DEADLINE);
        atHandOver(Map.class, () -> time.advanceTimeBy(DEADLINE.multipliedBy(2)));
        Caller caller = new Caller();
        call.subscribe(caller);
        time.advanceTimeBy(DEADLINE.multipliedBy(2));
        assertThat(caller.outcome.get()).as("the call ended").isNotNull();
        assertEveryAnswerReleased();
    }

    @Test
    void aCallerThatCancelsAsTheAnswersAreHandedOverLosesNoAnswer() {
        VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
        Mono<Map<Integer, Payload>> call = FanOut.requestResponse(shards(), shard -> ByteBufPayload.create("q" + shard), DEADLINE);
        Caller caller = new Caller();
        atHandOver(Map.class, caller::cancel);
        call.subscribe(caller);
        time.advanceTimeBy(DEADLINE.multipliedBy(2));
        assertThat(caller.isDisposed()).isTrue();
        assertThat(caller.outcome.get()).as("a cancelled caller hears nothing").isNull();
        assertEveryAnswerReleased();
    }

    @Test
    void withoutARaceTheCallerGetsEveryAnswer() {
        VirtualTimeScheduler.getOrSet();
        Caller caller = new Caller();
        FanOut.requestResponse(shards(), shard -> ByteBufPayload.create("q" + shard), DEADLINE).subscribe(caller);
        assertThat(caller.outcome.get()).isEqualTo(java.util.Set.of(0, 1, 2));
        assertEveryAnswerReleased();
    }

    @Test
    void aCallerThatCancelsAsThePartialResultIsHandedOverLosesNoAnswer() {
        VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
        Mono<FanOutResult<Integer>> call = FanOut.requestResponseAll(shards(), shard -> ByteBufPayload.create("q" + shard), DEADLINE);
        AtomicReference<Object> outcome = new AtomicReference<>();
        BaseSubscriber<FanOutResult<Integer>> caller = new BaseSubscriber<>() {
            @Override
            protected void hookOnNext(FanOutResult<Integer> value) {
                value.release();
                outcome.set(value);
            }
        };
        atHandOver(FanOutResult.class, caller::cancel);
        call.subscribe(caller);
        time.advanceTimeBy(DEADLINE.multipliedBy(2));
        assertThat(caller.isDisposed()).isTrue();
        assertThat(outcome.get()).as("a cancelled caller hears nothing").isNull();
        assertEveryAnswerReleased();
    }
}
