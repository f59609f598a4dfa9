package io.reactorrdma.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;

/**
 * Many threads on the same counters; invariants are checked inside the loops and the totals must
 * balance at the end. Time-bounded by iteration counts and generous timeouts, never by timing.
 */
class FlowControlConcurrencyTest {

    private static final int THREADS = 8;

    /** Runs {@code body} on THREADS threads started together; rethrows the first failure. */
    private static void race(int threads, ThrowingRunnable body) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    body.run();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "race-" + t);
            th.start();
            ts.add(th);
        }
        start.countDown();
        for (Thread th : ts) {
            th.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(th.isAlive()).as("%s finished", th.getName()).isFalse();
        }
        if (failure.get() != null) {
            throw new AssertionError("a racing thread failed", failure.get());
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    @Timeout(120)
    void creditsNeverGoNegativeNorAboveInitialAndTheReserveHolds() throws Exception {
        int initial = 16;
        int reserved = 2;
        CreditCounter c = new CreditCounter(initial, reserved);
        AtomicInteger held = new AtomicInteger();      // credits taken and not yet given back
        AtomicInteger dataHeld = new AtomicInteger();  // of which by data
        AtomicLong acquired = new AtomicLong();
        AtomicLong released = new AtomicLong();
        AtomicLong listenerRuns = new AtomicLong();
        c.onCreditsReturned(listenerRuns::incrementAndGet);

        race(THREADS, () -> {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            for (int i = 0; i < 20_000; i++) {
                boolean control = rnd.nextInt(8) == 0;
                int n;
                if (control) {
                    n = c.tryAcquireControl() ? 1 : 0;
                } else if (rnd.nextBoolean()) {
                    n = c.tryAcquireUpTo(1 + rnd.nextInt(4));
                } else {
                    int want = 1 + rnd.nextInt(3);
                    n = c.tryAcquireData(want) ? want : 0;
                }
                int a = c.available();
                assertThat(a).isBetween(0, initial);
                if (n == 0) {
                    continue;
                }
                acquired.addAndGet(n);
                assertThat(held.addAndGet(n)).isLessThanOrEqualTo(initial);
                if (!control) {
                    assertThat(dataHeld.addAndGet(n)).as("data never uses the reserve")
                            .isLessThanOrEqualTo(initial - reserved);
                }
                if (rnd.nextInt(16) == 0) {
                    Thread.yield();
                }
                if (!control) {
                    dataHeld.addAndGet(-n);
                }
                held.addAndGet(-n);
                c.release(n);
                released.addAndGet(n);
                assertThat(c.available()).isBetween(0, initial);
            }
        });

        assertThat(c.available()).isEqualTo(initial);
        assertThat(held).hasValue(0);
        assertThat(acquired.get()).isEqualTo(released.get()).isPositive();
        assertThat(listenerRuns.get()).isPositive();
    }

    @Test
    @Timeout(120)
    void windowNeverExceedsCapacityExceptOneOversizeRequestAlone() throws Exception {
        long capacity = 64 * 1024;
        ByteWindow w = new ByteWindow(capacity);
        AtomicLong normalHeld = new AtomicLong();
        AtomicInteger oversizeHolders = new AtomicInteger();
        AtomicLong acquiredBytes = new AtomicLong();
        AtomicLong releasedBytes = new AtomicLong();

        race(THREADS, () -> {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            for (int i = 0; i < 20_000; i++) {
                boolean oversize = rnd.nextInt(500) == 0;
                long bytes = oversize ? capacity + 1 + rnd.nextInt(100_000) : 1 + rnd.nextInt(16 * 1024);
                if (!w.tryAcquire(bytes)) {
                    long f = w.inFlight();
                    assertThat(f).isNotNegative();
                    continue;
                }
                acquiredBytes.addAndGet(bytes);
                if (oversize) {
                    assertThat(oversizeHolders.incrementAndGet()).as("one oversize request at a time").isEqualTo(1);
                    assertThat(normalHeld.get()).as("the oversize request is alone").isZero();
                } else {
                    assertThat(normalHeld.addAndGet(bytes)).isLessThanOrEqualTo(capacity);
                    assertThat(oversizeHolders.get()).as("nothing beside an oversize request").isZero();
                }
                long f = w.inFlight();
                assertThat(f).isPositive();
                if (!oversize) {
                    assertThat(f).isLessThanOrEqualTo(capacity);
                }
                if (rnd.nextInt(16) == 0) {
                    Thread.yield();
                }
                if (oversize) {
                    oversizeHolders.decrementAndGet();
                } else {
                    normalHeld.addAndGet(-bytes);
                }
                w.release(bytes);
                releasedBytes.addAndGet(bytes);
            }
        });

        assertThat(w.inFlight()).isZero();
        assertThat(acquiredBytes.get()).isEqualTo(releasedBytes.get()).isPositive();
    }

    @Test
    @Timeout(120)
    void creditReturnerBalancesUnderConcurrentDemandAndReceives() throws Exception {
        int depth = 32;
        int messages = 200_000;
        CreditReturner r = new CreditReturner(depth);
        AtomicLong requested = new AtomicLong();
        AtomicLong returned = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> engineFailure = new AtomicReference<>();

        // The engine: a simulated peer holding credits sends whenever it can (received), and the
        // engine returns what the returner allows. Demand comes from other threads.
        Thread engine = new Thread(() -> {
            try {
                int peerCredits = depth;
                long consumed = 0;
                while (consumed < messages && !stop.get()) {
                    if (peerCredits > 0) {
                        int n = Math.min(peerCredits, (int) Math.min(messages - consumed, 1 + (consumed % 5)));
                        peerCredits -= n;
                        consumed += n;
                        if (consumed % 7 == 0) {
                            r.receivedControl(n);
                        } else {
                            r.received(n);
                        }
                    }
                    int c = r.takeCredits();
                    if (c > 0) {
                        assertThat(c).isGreaterThanOrEqualTo(r.batchSize());
                        peerCredits += c;
                        returned.addAndGet(c);
                    }
                    assertThat(peerCredits + r.freed()).as("credits are conserved").isEqualTo(depth);
                    if (peerCredits == 0 && c == 0) {
                        Thread.onSpinWait();
                    }
                }
            } catch (Throwable e) {
                engineFailure.set(e);
            }
        }, "engine");
        engine.start();
        try {
            race(4, () -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (requested.get() < messages + depth) {
                    int n = 1 + rnd.nextInt(8);
                    requested.addAndGet(n);
                    r.request(n);
                    assertThat(r.freed()).isBetween(0, depth);
                    long outstanding = r.outstandingDemand();
                    assertThat(outstanding).isLessThanOrEqualTo(requested.get());
                }
            });
            engine.join(TimeUnit.SECONDS.toMillis(60));
        } finally {
            stop.set(true);
            engine.join(TimeUnit.SECONDS.toMillis(60));
        }
        if (engineFailure.get() != null) {
            throw new AssertionError("engine failed", engineFailure.get());
        }
        // Demand exceeded the messages, so everything consumed went back but for a remainder below
        // one batch (demand may have arrived after the engine's last look: take once more).
        returned.addAndGet(r.takeCredits());
        assertThat(returned.get() + r.freed()).isEqualTo(messages);
        assertThat(r.freed()).isLessThan(r.batchSize());
        assertThat(r.returnable()).isEqualTo(r.freed());
    }

    /**
     * Many threads calling {@code capacityAvailable()} at once must never request the same
     * capacity twice: outstanding demand stays within capacity at every request.
     */
    @Test
    @Timeout(120)
    void concurrentWakeUpsNeverOverRequest() throws Exception {
        AtomicLong capacity = new AtomicLong(0);
        AtomicLong requested = new AtomicLong();
        AtomicLong violations = new AtomicLong();
        Publisher<Integer> recording = s -> s.onSubscribe(new Subscription() {
            @Override
            public void request(long n) {
                if (n <= 0 || requested.addAndGet(n) > capacity.get()) {
                    violations.incrementAndGet();
                }
            }

            @Override
            public void cancel() {
            }
        });
        CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(capacity::get, i -> { });
        AtomicBoolean subscribed = new AtomicBoolean();
        race(THREADS, () -> {
            if (subscribed.compareAndSet(false, true)) {
                recording.subscribe(g);
            }
            for (int i = 0; i < 20_000; i++) {
                if (i % 10 == 0) {
                    capacity.incrementAndGet(); // capacity only grows: a snapshot never exceeds it
                }
                g.capacityAvailable();
            }
        });
        g.capacityAvailable();
        assertThat(violations).hasValue(0);
        assertThat(capacity.get()).isEqualTo(THREADS * 2_000L);
        // nothing was delivered, so all that is requested is outstanding: less than capacity by under a quarter
        // of it (demand goes up in batches of a quarter of the room while some is outstanding)
        assertThat(requested.get()).isLessThanOrEqualTo(capacity.get()).isGreaterThan(capacity.get() - capacity.get() / 4);
        assertThat(g.outstanding()).isEqualTo(requested.get());
    }

    /** Rule 2.7: request and cancel are never called concurrently, whichever threads ask. */
    @Test
    @Timeout(120)
    void requestAndCancelAreSerial() throws Exception {
        for (int round = 0; round < 50; round++) {
            AtomicInteger inside = new AtomicInteger();
            AtomicLong overlaps = new AtomicLong();
            AtomicInteger cancels = new AtomicInteger();
            AtomicLong capacity = new AtomicLong();
            Subscription checking = new Subscription() {
                @Override
                public void request(long n) {
                    enter();
                }

                @Override
                public void cancel() {
                    cancels.incrementAndGet();
                    enter();
                }

                private void enter() {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    for (int i = 0; i < 50; i++) {
                        Thread.onSpinWait();
                    }
                    inside.decrementAndGet();
                }
            };
            CapacityGatedSubscriber<Integer> g = new CapacityGatedSubscriber<>(capacity::get, i -> { });
            g.onSubscribe(checking);
            AtomicInteger ids = new AtomicInteger();
            race(4, () -> {
                boolean canceller = ids.getAndIncrement() == 0;
                for (int i = 0; i < 2_000; i++) {
                    capacity.incrementAndGet();
                    if (canceller && i == 1_000) {
                        g.cancel();
                    }
                    g.capacityAvailable();
                }
            });
            assertThat(overlaps).as("round %d", round).hasValue(0);
            assertThat(cancels).hasValue(1);
            assertThat(g.isDisposed()).isTrue();
        }
    }
}
