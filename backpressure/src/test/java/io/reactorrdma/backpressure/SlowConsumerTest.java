package io.reactorrdma.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;

import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A sender and a receiver wired together in memory, the way an engine wires them over a queue
 * pair: the sender's {@link CapacityGatedSubscriber} sends only with a {@link CreditCounter}
 * credit into a "receive queue" of {@code depth} posted buffers; the receiver's engine thread
 * consumes them, hands them to a subscriber and returns credits as its {@link CreditReturner}
 * allows. A slow or paused subscriber must stop the sender, with everything arriving in order.
 */
class SlowConsumerTest {

    private static final Duration VERIFY = Duration.ofSeconds(30);

    /** One direction of a connection: sender, wire, receiver engine, inbound flux. */
    private static final class Link implements AutoCloseable {
        final CreditCounter credits;
        final CreditReturner returner;
        /** The receiver's posted receives: an offer that fails would be receiver-not-ready. */
        final ArrayBlockingQueue<Integer> wire;
        final Sinks.Many<Integer> inboundSink = Sinks.many().unicast().onBackpressureBuffer();
        final Flux<Integer> inbound;
        final CapacityGatedSubscriber<Integer> sender;

        final AtomicLong sent = new AtomicLong();
        final AtomicLong consumed = new AtomicLong();
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong requested = new AtomicLong();
        final AtomicLong maxInFlight = new AtomicLong();
        final Queue<String> violations = new ConcurrentLinkedQueue<>();

        private final Thread engine;
        private volatile boolean senderDone;
        private volatile boolean stop;

        Link(int depth, int reserved) {
            credits = new CreditCounter(depth, reserved);
            returner = new CreditReturner(depth);
            wire = new ArrayBlockingQueue<>(depth);
            sender = new CapacityGatedSubscriber<>(credits::availableForData, this::send);
            credits.onCreditsReturned(sender::capacityAvailable);
            inbound = inboundSink.asFlux()
                    .doOnNext(i -> delivered.incrementAndGet())
                    .doOnRequest(n -> {
                        requested.getAndUpdate(r -> r + n < 0 ? Long.MAX_VALUE : r + n);
                        returner.request(n);
                    });
            engine = new Thread(this::runEngine, "receiver-engine");
            returner.onCreditsDue(() -> LockSupport.unpark(engine));
        }

        void start(Publisher<Integer> messages) {
            sender.completion().subscribe(null, e -> violations.add("sender failed: " + e), () -> senderDone = true);
            engine.start();
            messages.subscribe(sender);
        }

        /** The sender's sink: post a SEND, which takes a credit and a posted receive at the peer. */
        private void send(Integer message) {
            if (!credits.tryAcquireData()) {
                violations.add("sent " + message + " without a credit");
            }
            long s = sent.incrementAndGet();
            long dataCredits = credits.initialCredits() - credits.reserved();
            long r = requested.get();
            if (r != Long.MAX_VALUE && s > dataCredits + r) {
                violations.add("sent " + s + " with only " + r + " requested");
            }
            long inFlight = s - delivered.get();
            maxInFlight.accumulateAndGet(inFlight, Math::max);
            if (!wire.offer(message)) {
                violations.add("receiver not ready for " + message);
            }
        }

        /** The receiver's I/O thread: poll completions, deliver, return credits. */
        private void runEngine() {
            try {
                while (!stop) {
                    boolean done = senderDone; // read before polling: then an empty poll means the end
                    Integer m = wire.poll();
                    if (m != null) {
                        consumed.incrementAndGet();
                        returner.received();
                        inboundSink.emitNext(m, Sinks.EmitFailureHandler.FAIL_FAST);
                    }
                    int c = returner.takeCredits();
                    if (c > 0) {
                        // A real engine posts c fresh receives here (the wire's free slots), then
                        // sends the credits; here they arrive at once.
                        credits.release(c);
                    }
                    if (m == null && c == 0) {
                        if (done) {
                            inboundSink.emitComplete(Sinks.EmitFailureHandler.FAIL_FAST);
                            return;
                        }
                        LockSupport.parkNanos(100_000);
                    }
                }
            } catch (Throwable e) {
                violations.add("engine failed: " + e);
                inboundSink.tryEmitError(e);
            }
        }

        @Override
        public void close() {
            stop = true;
            sender.cancel();
            try {
                engine.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting until " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Test
    @Timeout(60)
    void aPausedConsumerStopsTheSenderAndDemandRestartsIt() {
        int depth = 8;
        int reserved = 1;
        int n = 1_000;
        try (Link link = new Link(depth, reserved)) {
            link.start(Flux.range(0, n));
            StepVerifier.create(link.inbound, 0)
                    .expectSubscription()
                    // No demand: the sender uses its initial data credits and stops.
                    .then(() -> await("the initial credits are used", () -> link.consumed.get() == depth - reserved))
                    .then(() -> {
                        assertThat(link.sent).hasValue(depth - reserved);
                        assertThat(link.credits.availableForData()).isZero();
                        assertThat(link.sender.outstanding()).as("nothing requested upstream").isZero();
                        assertThat(link.returner.returnable()).as("no credits without demand").isZero();
                    })
                    // Demand below a batch: delivered from the buffer, no credits go back yet.
                    .thenRequest(3)
                    .expectNext(0, 1, 2)
                    .then(() -> {
                        assertThat(link.returner.returnable()).isEqualTo(3);
                        assertThat(link.sent).hasValue(depth - reserved);
                    })
                    // A batch of demand: one batch of credits, the sender sends one batch more.
                    .thenRequest(1)
                    .expectNext(3)
                    .then(() -> await("a batch was sent", () -> link.consumed.get() == depth - reserved + depth / 2))
                    .then(() -> {
                        assertThat(link.sent).hasValue(depth - reserved + depth / 2);
                        assertThat(link.returner.returnable()).isZero();
                        assertThat(link.maxInFlight.get()).isLessThanOrEqualTo(depth);
                    })
                    // The rest, at full speed.
                    .thenRequest(Long.MAX_VALUE)
                    .expectNextCount(n - 4)
                    .expectComplete()
                    .verify(VERIFY);
            assertThat(link.violations).isEmpty();
            assertThat(link.sent).hasValue(n);
        }
    }

    /**
     * A consumer requesting {@code batch} at a time from another thread, pausing now and then: the
     * sender never gets ahead of the consumer by more than its data credits plus the consumer's
     * outstanding demand — for one-at-a-time that is at most the initial credit count — and every
     * message arrives, in order.
     */
    @ParameterizedTest(name = "consumer requests {0} at a time")
    @ValueSource(ints = {1, 3, 16})
    @Timeout(60)
    void aSlowConsumerGetsEverythingInOrderWhileTheSenderStaysWithinCredits(int batch) {
        int depth = 8;
        int reserved = 1;
        int n = 5_000;
        Scheduler consumerThread = Schedulers.newSingle("slow-consumer");
        try (Link link = new Link(depth, reserved)) {
            AtomicLong next = new AtomicLong();
            Sinks.Empty<Void> done = Sinks.empty();
            BaseSubscriber<Integer> consumer = new BaseSubscriber<>() {
                long received;

                @Override
                protected void hookOnSubscribe(Subscription subscription) {
                    request(batch);
                }

                @Override
                protected void hookOnNext(Integer value) {
                    long expected = next.getAndIncrement();
                    if (value != expected) {
                        link.violations.add("got " + value + " expecting " + expected);
                    }
                    if (value % 50 == 0) {
                        LockSupport.parkNanos(200_000); // a slow consumer
                    }
                    if (++received % batch == 0) {
                        consumerThread.schedule(() -> request(batch)); // demand from another thread
                    }
                }

                @Override
                protected void hookOnComplete() {
                    done.tryEmitEmpty();
                }

                @Override
                protected void hookOnError(Throwable throwable) {
                    done.tryEmitError(throwable);
                }
            };
            link.inbound.subscribe(consumer);
            link.start(Flux.range(0, n).publishOn(Schedulers.parallel(), 64));

            StepVerifier.create(done.asMono()).expectComplete().verify(VERIFY);

            assertThat(link.violations).isEmpty();
            assertThat(next).hasValue(n);
            assertThat(link.sent).hasValue(n);
            assertThat(link.maxInFlight.get())
                    .as("sent and not yet delivered")
                    .isLessThanOrEqualTo(depth - reserved + batch);
            if (batch == 1) {
                assertThat(link.maxInFlight.get()).isLessThanOrEqualTo(link.credits.initialCredits());
            }
        } finally {
            consumerThread.dispose();
        }
    }
}
