package io.reactorrdma.rsocket.recovery;

import io.micrometer.core.instrument.Counter;
import io.rsocket.lease.Lease;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The server-wide ledger behind {@link ReceiveCapacityLeases}: how many requests the server's
 * connections can take (their receive windows), how many are in progress, how many were granted
 * by leases and have not arrived yet, and which connections wait for a new lease. Every method
 * takes the ledger's lock; leases are emitted under it, so a connection's leases never race.
 *
 * <p>Grants are race-free with RSocket's lease semantics (a new lease replaces the old count):
 * a connection gets a new lease only once every request of its previous one has arrived, so no
 * request sent under an old lease can use up a new one, and leases do not expire by default.
 */
final class ReceiveCapacity {

    private static final System.Logger LOG = System.getLogger(ReceiveCapacityLeases.class.getName());

    /** A connection's contribution: its receive window, and the part of it free right now. */
    interface Source {
        int capacity();

        int headroom();
    }

    private final Duration leaseTimeToLive;
    private final int maxInFlight;
    private final long recheckNanos;
    private final Scheduler timer;
    private final Counter leasesGranted;
    private final Counter requestsGranted;
    private final Counter exhausted;

    private final List<Source> sources = new ArrayList<>();
    private final ArrayDeque<CapacityLeaseSender> waiting = new ArrayDeque<>();
    private int totalCapacity;
    private int senders;
    private int inFlight;
    /** Requests granted by leases that have not arrived yet. */
    private int outstanding;
    private Disposable recheck;

    ReceiveCapacity(Duration leaseTimeToLive, int maxInFlight, Duration recheckInterval, Scheduler timer,
                    Counter leasesGranted, Counter requestsGranted, Counter exhausted) {
        this.leaseTimeToLive = leaseTimeToLive;
        this.maxInFlight = maxInFlight;
        this.recheckNanos = recheckInterval.toNanos();
        this.timer = timer;
        this.leasesGranted = leasesGranted;
        this.requestsGranted = requestsGranted;
        this.exhausted = exhausted;
    }

    synchronized void addSource(Source s) {
        sources.add(s);
        totalCapacity += s.capacity();
        grantWaiting();
    }

    synchronized void removeSource(Source s) {
        if (sources.remove(s)) {
            totalCapacity -= s.capacity();
        }
    }

    /** A connection's lease stream was subscribed: it gets its first lease as soon as there is room. */
    synchronized void open(CapacityLeaseSender s) {
        senders++;
        waiting.add(s);
        grantWaiting();
    }

    /** The connection closed: what it was granted and what it had in progress no longer count. */
    synchronized void close(CapacityLeaseSender s) {
        if (s.closed) {
            return;
        }
        s.closed = true;
        senders--;
        waiting.remove(s);
        outstanding -= s.remaining;
        inFlight -= s.inFlight;
        s.remaining = 0;
        s.inFlight = 0;
        grantWaiting();
    }

    /** A request granted to {@code s} arrived and started. */
    synchronized void started(CapacityLeaseSender s) {
        if (s.closed) {
            return;
        }
        s.inFlight++;
        inFlight++;
        if (s.remaining > 0) {
            s.remaining--;
            outstanding--;
            if (s.remaining == 0) {
                waiting.add(s);
                grantWaiting();
                if (waiting.contains(s)) {
                    exhausted.increment();
                    LOG.log(System.Logger.Level.DEBUG, () -> s + " used its lease up and waits: " + this);
                }
            }
        }
    }

    /** A request of {@code s} terminated or was cancelled: its slot is free. */
    synchronized void finished(CapacityLeaseSender s) {
        if (s.closed || s.inFlight == 0) {
            return;
        }
        s.inFlight--;
        inFlight--;
        grantWaiting();
    }

    synchronized int inFlight() {
        return inFlight;
    }

    synchronized int connections() {
        return senders;
    }

    /** Requests the server could grant now. */
    synchronized int available() {
        int byWork = totalCapacity - inFlight - outstanding;
        int headroom = 0;
        for (Source s : sources) {
            headroom += s.headroom();
        }
        int available = Math.min(byWork, headroom - outstanding);
        if (maxInFlight > 0) {
            available = Math.min(available, maxInFlight - inFlight - outstanding);
        }
        return Math.max(0, available);
    }

    /**
     * Grants leases to waiting connections, first come first served: each at most an equal share of
     * the total capacity, and only when at least a quarter of a share is free (fewer, larger leases).
     * When receive headroom (not work in progress) holds grants back, checks again after the
     * recheck interval, since the engines do not signal headroom.
     */
    private void grantWaiting() {
        if (waiting.isEmpty()) {
            return;
        }
        int share = Math.max(1, -Math.floorDiv(-totalCapacity, Math.max(1, senders)));
        int minGrant = Math.max(1, share / 4);
        while (!waiting.isEmpty()) {
            int available = available();
            if (available < minGrant) {
                break;
            }
            CapacityLeaseSender s = waiting.poll();
            int n = Math.min(available, share);
            s.remaining = n;
            outstanding += n;
            leasesGranted.increment();
            requestsGranted.increment(n);
            LOG.log(System.Logger.Level.TRACE, () -> "lease of " + n + " to " + s);
            s.emit(Lease.create(leaseTimeToLive, n));
        }
        if (!waiting.isEmpty() && (recheck == null || recheck.isDisposed())) {
            recheck = timer.schedule(this::recheck, recheckNanos, TimeUnit.NANOSECONDS);
        }
    }

    private synchronized void recheck() {
        recheck = null;
        grantWaiting();
    }

    @Override
    public synchronized String toString() {
        return "ReceiveCapacity{capacity=" + totalCapacity + ", inFlight=" + inFlight + ", outstanding=" + outstanding
                + ", connections=" + senders + ", waiting=" + waiting.size() + "}";
    }
}
