package io.reactorrdma.rsocket.lease;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rsocket.lease.Lease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease ledger, driven directly (no transport, no clock: a virtual-time timer that never
 * advances unless told), so every interleaving is the test's: a connection that opened alone and
 * went idle with its lease must not starve later or smaller ones.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReceiveCapacityFairnessTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private static final Duration IDLE = ReceiveCapacityLeases.DEFAULT_IDLE_GRANT_TIMEOUT;
    private final VirtualTimeScheduler timer = VirtualTimeScheduler.create();

    /** Tasks the ledger ran on its timer (rechecks and lending wake-ups). */
    private final java.util.concurrent.atomic.AtomicInteger timerTasks = new java.util.concurrent.atomic.AtomicInteger();

    private ReceiveCapacity ledger(int maxInFlight) {
        reactor.core.scheduler.Scheduler counting = new reactor.core.scheduler.Scheduler() {
            @Override
            public Disposable schedule(Runnable task) {
                return timer.schedule(counted(task));
            }

            @Override
            public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
                return timer.schedule(counted(task), delay, unit);
            }

            @Override
            public long now(TimeUnit unit) {
                return timer.now(unit);
            }

            @Override
            public Worker createWorker() {
                return timer.createWorker();
            }

            private Runnable counted(Runnable task) {
                return () -> {
                    timerTasks.incrementAndGet();
                    task.run();
                };
            }
        };
        return new ReceiveCapacity(ReceiveCapacityLeases.DEFAULT_LEASE_TIME_TO_LIVE, maxInFlight, Duration.ofMillis(5), IDLE, counting,
                meters.counter("granted"), meters.counter("requests"), meters.counter("exhausted"));
    }

    private static ReceiveCapacity.Source source(int capacity) {
        return new ReceiveCapacity.Source() {
            @Override
            public int capacity() {
                return capacity;
            }

            @Override
            public int headroom() {
                return capacity;
            }
        };
    }

    /** A connection: its sender and the leases it received. */
    private final class Connection {
        final CapacityLeaseSender sender;
        final List<Lease> leases = new CopyOnWriteArrayList<>();
        final Disposable subscription;

        Connection(ReceiveCapacity ledger, int id) {
            sender = new CapacityLeaseSender(ledger, meters.counter("rejected"), id);
            subscription = sender.send().subscribe(leases::add);
        }

        int granted() {
            return leases.stream().mapToInt(Lease::numberOfRequests).sum();
        }
    }

    @Test
    void aLaterConnectionGetsALeaseWhenMaxInFlightIsOneWindowAndTheFirstIsIdle() {
        ReceiveCapacity ledger = ledger(32);
        ledger.addSource(source(32));
        Connection first = new Connection(ledger, 1);
        assertThat(first.granted()).as("the first connection, alone, takes its share").isEqualTo(32);

        ledger.addSource(source(32));
        Connection second = new Connection(ledger, 2);
        assertThat(second.leases).as("nothing lent while the first one's grant may still be in use").isEmpty();
        timer.advanceTimeBy(IDLE.minusNanos(1));
        assertThat(second.leases).as("nothing lent before the idle-grant timeout").isEmpty();
        timer.advanceTimeBy(Duration.ofNanos(1));
        assertThat(second.leases).as("the second connection got a lease while the first sits idle on its grant").isNotEmpty();
        assertThat(ledger.inFlight()).isZero();

        // The first one's grant, when it is used after all, is accounted for: nothing goes negative,
        // and once every request ended the whole capacity is free again.
        for (int i = 0; i < 32; i++) {
            ledger.started(first.sender);
        }
        for (int i = 0; i < second.granted(); i++) {
            ledger.started(second.sender);
        }
        for (int i = 0; i < 32; i++) {
            ledger.finished(first.sender);
        }
        for (int i = 0; i < second.granted(); i++) {
            ledger.finished(second.sender);
        }
        assertThat(ledger.inFlight()).isZero();
        ledger.close(first.sender);
        ledger.close(second.sender);
        assertThat(ledger.available()).as("all capacity free after both closed").isEqualTo(32);
        first.subscription.dispose();
        second.subscription.dispose();
    }

    @Test
    void aConnectionWaitingForWorkToEndIsWokenByItsEndNotByPolling() {
        ReceiveCapacity ledger = ledger(4);
        ledger.addSource(source(32));
        Connection busy = new Connection(ledger, 1);
        assertThat(busy.granted()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            ledger.started(busy.sender); // its lease used up, four requests in progress: it waits for a new one
        }
        timer.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(timerTasks.get()).as("timer tasks run while only work in progress (which signals its end) held the lease back")
                .isZero();
        ledger.finished(busy.sender);
        assertThat(busy.leases).as("woken by the end of a request").hasSize(2);
        busy.subscription.dispose();
    }

    @Test
    void aSmallConnectionBesideALargeIdleOneGetsALease() {
        ReceiveCapacity ledger = ledger(0);
        ledger.addSource(source(512)); // TCP, connectionCapacity 512
        Connection tcp = new Connection(ledger, 1);
        assertThat(tcp.granted()).isEqualTo(512);

        ledger.addSource(source(32)); // an RDMA connection with the default window
        Connection rdma = new Connection(ledger, 2);
        assertThat(rdma.leases).as("the small connection got a lease beside the large idle one").isNotEmpty();
        assertThat(rdma.granted()).isBetween(1, 32);
        tcp.subscription.dispose();
        rdma.subscription.dispose();
    }
}
