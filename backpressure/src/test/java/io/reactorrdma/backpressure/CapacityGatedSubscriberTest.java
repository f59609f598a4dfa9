package io.reactorrdma.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;

import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import reactor.util.context.Context;

class CapacityGatedSubscriberTest {

    private static final Duration VERIFY = Duration.ofSeconds(30);

    /** A capacity the sink uses up: each accepted item takes one unit, as an engine takes a slot. */
    private static final class Units {
        final AtomicLong free;

        Units(long initial) {
            free = new AtomicLong(initial);
        }

        void take() {
            assertThat(free.decrementAndGet()).as("the sink never gets an item without capacity").isNotNegative();
        }
    }

    @Test
    void demandNeverExceedsCapacity() {
        TestPublisher<Integer> tp = TestPublisher.create();
        Units units = new Units(3);
        List<Integer> got = new ArrayList<>();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(units.free::get, i -> {
            units.take();
            got.add(i);
        });
        tp.flux().subscribe(g);

        tp.assertWasRequested();
        tp.assertMaxRequested(3).assertMinRequested(3);
        tp.next(1);
        tp.assertMaxRequested(2);
        tp.next(2, 3);
        tp.assertMaxRequested(0);
        assertThat(g.outstanding()).isZero();
        g.capacityAvailable();
        tp.assertMaxRequested(0);
        assertThat(got).containsExactly(1, 2, 3);
        assertThat(g.requestedTotal()).isEqualTo(3);
        assertThat(g.deliveredTotal()).isEqualTo(3);
        tp.assertNoRequestOverflow();
    }

    @Test
    void noCapacityNoRequest() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 0, i -> { });
        tp.flux().subscribe(g);
        tp.assertWasSubscribed();
        tp.assertWasNotRequested();
        g.capacityAvailable();
        tp.assertWasNotRequested();
        assertThat(g.outstanding()).isZero();
    }

    @Test
    void negativeCapacityMeansNone() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> -5, i -> { });
        tp.flux().subscribe(g);
        tp.assertWasNotRequested();
    }

    @Test
    void returnedCapacityBecomesDemand() {
        TestPublisher<Integer> tp = TestPublisher.create();
        Units units = new Units(0);
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(units.free::get, i -> units.take());
        tp.flux().subscribe(g);
        tp.assertWasNotRequested();

        units.free.set(2);
        g.capacityAvailable();
        tp.assertWasRequested();
        tp.assertMinRequested(2).assertMaxRequested(2);

        tp.next(10, 11);
        tp.assertMaxRequested(0);

        units.free.addAndGet(5); // a completion returned five slots
        g.capacityAvailable();
        tp.assertMinRequested(5).assertMaxRequested(5);
        tp.next(12);
        units.free.addAndGet(1);
        g.capacityAvailable();
        tp.assertMaxRequested(5);
        assertThat(g.requestedTotal()).isEqualTo(8);
    }

    @Test
    void demandGoesUpInBatchesOfAQuarterOfTheRoomNotAfterEveryItem() {
        // Before, every item asked the publisher for one more: a call into it (an atomic add and its drain) per item.
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 32, i -> { }); // the sink passes items on at once
        tp.flux().subscribe(g);
        tp.assertMinRequested(32).assertMaxRequested(32);
        for (int i = 1; i <= 7; i++) {
            tp.next(i);
        }
        assertThat(g.requestedTotal()).as("7 delivered of 32: under a quarter of the room to ask for").isEqualTo(32);
        tp.next(8);
        assertThat(g.requestedTotal()).as("the eighth makes a quarter").isEqualTo(40);
        assertThat(g.outstanding()).isEqualTo(32);
        tp.assertNoRequestOverflow();
    }

    @Test
    void aPublisherWithNothingOutstandingIsAskedForWhatIsThereHoweverLittle() {
        TestPublisher<Integer> tp = TestPublisher.create();
        Units units = new Units(32);
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(units.free::get, i -> units.take());
        tp.flux().subscribe(g);
        for (int i = 0; i < 32; i++) {
            tp.next(i);
        }
        assertThat(g.outstanding()).isZero();
        units.free.set(1); // one slot came back: below a quarter of anything, but nothing is outstanding
        g.capacityAvailable();
        assertThat(g.outstanding()).isEqualTo(1);
        tp.assertMinRequested(1).assertMaxRequested(1);
    }

    @Test
    void capacityThatDoesNotChangeIsNotRequestedTwice() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 4, i -> { });
        tp.flux().subscribe(g);
        g.capacityAvailable();
        g.capacityAvailable();
        tp.assertMaxRequested(4);
        assertThat(g.requestedTotal()).isEqualTo(4);
    }

    @Test
    void completionPropagates() {
        TestPublisher<Integer> tp = TestPublisher.create();
        List<Integer> got = new ArrayList<>();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 10, got::add);
        tp.flux().subscribe(g);
        tp.next(1, 2);
        tp.complete();
        StepVerifier.create(g.completion()).expectComplete().verify(VERIFY);
        assertThat(got).containsExactly(1, 2);
        assertThat(g.isDisposed()).isTrue();
        g.cancel(); // after completion: nothing
        tp.assertNotCancelled(); // rule 2.4: a completed subscription is not cancelled
        StepVerifier.create(g.completion()).expectComplete().verify(VERIFY);
    }

    @Test
    void errorPropagates() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 10, i -> { });
        tp.flux().subscribe(g);
        tp.next(1);
        tp.error(new IOException("boom"));
        StepVerifier.create(g.completion()).expectErrorSatisfies(e ->
                assertThat(e).isInstanceOf(IOException.class).hasMessage("boom")).verify(VERIFY);
        assertThat(g.isDisposed()).isTrue();
    }

    @Test
    void completionWithFluxSources() {
        List<Integer> got = new ArrayList<>();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 1, got::add);
        Flux.range(0, 5).subscribe(g);
        StepVerifier.create(g.completion()).verifyComplete();
        assertThat(got).containsExactly(0, 1, 2, 3, 4);

        CapacityGatedSubscriber<Integer> empty = new CapacityGatedSubscriber<>(() -> 1, i -> { });
        Flux.<Integer>empty().subscribe(empty);
        StepVerifier.create(empty.completion()).verifyComplete();

        CapacityGatedSubscriber<Integer> failed = new CapacityGatedSubscriber<>(() -> 1, i -> { });
        Flux.<Integer>error(new IllegalStateException("x")).subscribe(failed);
        StepVerifier.create(failed.completion()).verifyErrorMessage("x");
    }

    @Test
    void cancellationCancelsUpstreamAndErrorsCompletion() {
        TestPublisher<Integer> tp = TestPublisher.create();
        Units units = new Units(2);
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(units.free::get, i -> units.take());
        tp.flux().subscribe(g);
        tp.next(1);
        g.cancel();
        tp.assertCancelled();
        tp.assertNoSubscribers();
        assertThat(g.isDisposed()).isTrue();
        StepVerifier.create(g.completion()).expectError(CancellationException.class).verify(VERIFY);

        units.free.set(100);
        g.capacityAvailable(); // no request after cancel (TestPublisher would not see it anyway)
        assertThat(g.requestedTotal()).isEqualTo(2);
    }

    @Test
    void itemsArrivingAfterCancelGoToTheDiscardHook() {
        List<Object> discarded = new CopyOnWriteArrayList<>();
        List<Integer> got = new ArrayList<>();
        AtomicReference<Subscription> sub = new AtomicReference<>();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 5, got::add,
                Context.of("reactor.onDiscard.local", (java.util.function.Consumer<Object>) discarded::add));
        Flux.<Integer>never().doOnSubscribe(sub::set).subscribe(g);
        g.dispose();
        g.onNext(42); // a publisher may still deliver after cancel (rule 2.8)
        assertThat(got).isEmpty();
        assertThat(discarded).containsExactly(42);
        g.onComplete(); // late terminal signal is ignored; completion stays the cancellation
        StepVerifier.create(g.completion()).expectError(CancellationException.class).verify(VERIFY);
    }

    @Test
    void failErrorsCompletionWithTheCause() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 2, i -> { });
        tp.flux().subscribe(g);
        g.fail(new IOException("peer 10.0.0.7:7000 gone"));
        tp.assertCancelled();
        StepVerifier.create(g.completion()).expectErrorMessage("peer 10.0.0.7:7000 gone").verify(VERIFY);
        g.fail(new IOException("second")); // ignored
        StepVerifier.create(g.completion()).expectErrorMessage("peer 10.0.0.7:7000 gone").verify(VERIFY);
        assertThatThrownBy(() -> g.fail(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void cancelBeforeSubscribeCancelsTheLateSubscription() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 2, i -> { });
        g.cancel();
        tp.flux().subscribe(g);
        tp.assertCancelled();
        tp.assertWasNotRequested();
    }

    @Test
    void aSecondSubscriptionIsCancelled() {
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 2, i -> { });
        TestPublisher<Integer> first = TestPublisher.create();
        TestPublisher<Integer> second = TestPublisher.create();
        first.flux().subscribe(g);
        second.flux().subscribe(g);
        second.assertCancelled();
        first.assertNotCancelled();
        first.assertMaxRequested(2);
    }

    @Test
    void aThrowingSinkFailsTheSend() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 2, i -> {
            throw new IllegalArgumentException("bad frame " + i);
        });
        tp.flux().subscribe(g);
        tp.next(7);
        tp.assertCancelled();
        StepVerifier.create(g.completion()).expectErrorMessage("bad frame 7").verify(VERIFY);
    }

    @Test
    void aThrowingCapacityFailsTheSend() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> {
            throw new IllegalStateException("engine closed");
        }, i -> { });
        tp.flux().subscribe(g);
        tp.assertCancelled();
        StepVerifier.create(g.completion()).expectErrorMessage("engine closed").verify(VERIFY);
    }

    @Test
    void aPublisherIgnoringDemandIsAnOverflowError() {
        TestPublisher<Integer> tp = TestPublisher.createNoncompliant(TestPublisher.Violation.REQUEST_OVERFLOW);
        List<Integer> got = new ArrayList<>();
        Units units = new Units(1);
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(units.free::get, i -> {
            units.take();
            got.add(i);
        });
        tp.flux().subscribe(g);
        tp.next(1);
        tp.next(2); // got only one request, and the sink still holds item 1 against capacity 1
        assertThat(got).containsExactly(1);
        StepVerifier.create(g.completion()).expectErrorSatisfies(e ->
                assertThat(Exceptions.isOverflow(e)).as("%s", e).isTrue()).verify(VERIFY);
        tp.assertCancelled();
    }

    @Test
    void nullSignalsAreRejected() {
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 1, i -> { });
        assertThatThrownBy(() -> g.onSubscribe(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> g.onNext(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> g.onError(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new CapacityGatedSubscriber<Integer>(null, i -> { }))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new CapacityGatedSubscriber<Integer>(() -> 1, null))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void unboundedCapacityRequestsUnbounded() {
        TestPublisher<Integer> tp = TestPublisher.create();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> Long.MAX_VALUE, i -> { });
        tp.flux().subscribe(g);
        tp.assertMinRequested(Long.MAX_VALUE);
        tp.next(1, 2, 3);
        assertThat(g.outstanding()).isEqualTo(Long.MAX_VALUE);
        assertThat(g.requestedTotal()).isEqualTo(Long.MAX_VALUE);
        tp.assertNoRequestOverflow();
    }

    @Test
    void synchronousReentrantPublisherIsHandledWithoutRecursion() {
        // The "engine" posts and completes at once inside the sink, returning capacity on the same
        // stack: every onNext triggers a request from within onNext.
        int n = 200_000;
        CreditCounter slots = new CreditCounter(4, 0);
        long[] next = {0};
        AtomicReference<CapacityGatedSubscriber<Integer>> ref = new AtomicReference<>();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(slots::availableForData, i -> {
            assertThat(slots.tryAcquire()).isTrue();
            assertThat((long) i).isEqualTo(next[0]++);
            slots.release(1); // completes immediately, wakes the subscriber reentrantly
        });
        ref.set(g);
        slots.onCreditsReturned(() -> ref.get().capacityAvailable());
        Flux.range(0, n).subscribe(g);
        StepVerifier.create(g.completion()).verifyComplete();
        assertThat(next[0]).isEqualTo(n);
    }

    @Test
    void worksWithMonoThen() {
        List<Integer> got = new ArrayList<>();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(() -> 2, got::add);
        Mono<Void> send = Mono.defer(() -> {
            Flux.range(1, 3).subscribe(g);
            return g.completion();
        }).doOnCancel(g::cancel);
        StepVerifier.create(send.then(Mono.just("sent"))).expectNext("sent").verifyComplete();
        assertThat(got).containsExactly(1, 2, 3);
    }

    /**
     * A fast publisher on its own thread, a sink that may hold at most {@code depth} items (the
     * engine's send queue), and an "engine" thread that completes items slowly and returns
     * capacity: everything arrives, in order, and the sink is never offered more than it can take.
     */
    @Test
    @Timeout(60)
    void fastPublisherSlowCapacityDeliversEverythingInOrder() throws Exception {
        int n = 20_000;
        int depth = 8;
        CreditCounter credits = new CreditCounter(depth, 0);
        ArrayBlockingQueue<Integer> sendQueue = new ArrayBlockingQueue<>(depth);
        AtomicLong violations = new AtomicLong();
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(credits::availableForData, i -> {
            if (!credits.tryAcquire() || !sendQueue.offer(i)) {
                violations.incrementAndGet();
            }
        });
        credits.onCreditsReturned(g::capacityAvailable);

        List<Integer> completed = new ArrayList<>(n);
        Thread engine = new Thread(() -> {
            long spins = 0;
            while (completed.size() < n && !Thread.currentThread().isInterrupted()) {
                Integer item = sendQueue.poll();
                if (item == null) {
                    LockSupport.parkNanos(10_000);
                    continue;
                }
                completed.add(item);
                if (++spins % 64 == 0) {
                    LockSupport.parkNanos(50_000); // slow completions now and then
                }
                credits.release(1);
            }
        }, "test-engine");
        engine.start();
        try {
            Flux.range(0, n).publishOn(Schedulers.parallel(), 256).subscribe(g);
            StepVerifier.create(g.completion()).expectComplete().verify(VERIFY);
            engine.join(VERIFY.toMillis());
        } finally {
            engine.interrupt();
            engine.join(VERIFY.toMillis());
        }
        assertThat(violations).hasValue(0);
        assertThat(completed).hasSize(n);
        for (int i = 0; i < n; i++) {
            if (completed.get(i) != i) {
                assertThat(completed.get(i)).as("item at %d", i).isEqualTo(i);
            }
        }
        assertThat(credits.available()).isEqualTo(depth);
        assertThat(g.deliveredTotal()).isEqualTo(n);
    }
}
