package io.reactorrdma.rsocket.lease;

import io.micrometer.core.instrument.Counter;
import io.rsocket.lease.Lease;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The server-wide ledger behind {@link ReceiveCapacityLeases}: how many requests the server's
 * connections can take (their receive windows), how many are in progress, how many were granted
 * by leases and have not arrived yet, and which connections wait for a new lease. Every method
 * takes the ledger's lock; leases are emitted under it, so a connection's leases never race.
 *
 * <p>Grants are race-free with RSocket's lease semantics (a new lease replaces the old count):
 * a connection gets a new lease only once every request of its previous one has arrived, so no
 * request sent under an old lease can use up a new one, and leases do not expire by default.
 *
 * <p>Fairness: since a lease cannot be taken back, a connection that holds nothing (no lease left,
 * nothing in progress) and finds nothing free is served by lending: the grants of connections that
 * have had nothing in progress and no request arriving for the idle-grant timeout stop counting,
 * once each, until they are used up. The ledger wakes once when the oldest such grant turns idle.
 * Such a connection is also granted whatever is free (at least one request), not only a quarter of
 * a share. The price: if a lender wakes up and uses its grant after all, requests in progress can
 * exceed the capacity (or {@code maxInFlight}) by the grants lent.
 */
final class ReceiveCapacity {

    private static final Logger LOG = Loggers.getLogger(ReceiveCapacity.class);

    /** A connection's contribution: its receive window, and the part of it free right now. */
    interface Source {
        int capacity();

        int headroom();
    }

    private final Duration leaseTimeToLive;
    private final int maxInFlight;
    private final long recheckNanos;
    private final long idleGrantNanos;
    private final Scheduler timer;
    private final Counter leasesGranted;
    private final Counter requestsGranted;
    private final Counter exhausted;

    private final List<Source> sources = new ArrayList<>();
    private final ArrayDeque<CapacityLeaseSender> waiting = new ArrayDeque<>();
    /** Connections with a lease stream, oldest first. */
    private final Set<CapacityLeaseSender> open = new LinkedHashSet<>();
    private int totalCapacity;
    private int inFlight;
    /** Requests granted by leases that have not arrived yet. */
    private int outstanding;
    private Disposable recheck;
    /** A one-shot wake-up when a grant turns idle and a connection holding nothing waits for one. */
    private Disposable lendWake;

    ReceiveCapacity(Duration leaseTimeToLive, int maxInFlight, Duration recheckInterval, Duration idleGrantTimeout, Scheduler timer,
                    Counter leasesGranted, Counter requestsGranted, Counter exhausted) {
        this.leaseTimeToLive = leaseTimeToLive;
        this.maxInFlight = maxInFlight;
        this.recheckNanos = recheckInterval.toNanos();
        this.idleGrantNanos = idleGrantTimeout.toNanos();
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
        open.add(s);
        waiting.add(s);
        grantWaiting();
    }

    /** The connection closed: what it was granted and what it had in progress no longer count. */
    synchronized void close(CapacityLeaseSender s) {
        if (s.closed) {
            return;
        }
        s.closed = true;
        open.remove(s);
        waiting.remove(s);
        if (!s.lent) {
            outstanding -= s.remaining;
        }
        s.lent = false;
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
        s.lastActivityNanos = timer.now(TimeUnit.NANOSECONDS);
        if (s.remaining > 0) {
            s.remaining--;
            if (!s.lent) {
                outstanding--;
            }
            if (s.remaining == 0) {
                s.lent = false;
                waiting.add(s);
                grantWaiting();
                if (waiting.contains(s)) {
                    exhausted.increment();
                    LOG.debug("{} used its lease up and waits: {}", s, this);
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
        return open.size();
    }

    /** Requests the server could grant now. */
    synchronized int available() {
        return Math.min(availableByWork(), availableByHeadroom());
    }

    /** What capacity and {@code maxInFlight} allow: changes only through this ledger's own methods. */
    private int availableByWork() {
        int byWork = totalCapacity - inFlight - outstanding;
        if (maxInFlight > 0) {
            byWork = Math.min(byWork, maxInFlight - inFlight - outstanding);
        }
        return Math.max(0, byWork);
    }

    /** What the engines' receive headroom allows: changes on the I/O threads, which do not signal it. */
    private int availableByHeadroom() {
        int headroom = 0;
        for (Source s : sources) {
            headroom += s.headroom();
        }
        return Math.max(0, headroom - outstanding);
    }

    /**
     * Grants leases to waiting connections, first come first served: each at most an equal share of
     * the total capacity, and only when at least a quarter of a share is free (fewer, larger leases),
     * or at least one request for a connection with nothing in progress (which lends it idle grants
     * when nothing is free: see the class comment).
     * Only when receive headroom is what holds the first waiting connection back does it check
     * again after the recheck interval, since the engines do not signal headroom; work in progress,
     * grants and connections change through this ledger, which then grants at once.
     */
    private void grantWaiting() {
        if (waiting.isEmpty()) {
            return;
        }
        int capacity = maxInFlight > 0 ? Math.min(totalCapacity, maxInFlight) : totalCapacity; // what can ever be free
        int share = Math.max(1, -Math.floorDiv(-capacity, Math.max(1, open.size())));
        int minGrant = Math.max(1, share / 4);
        boolean heldByHeadroom = false;
        while (!waiting.isEmpty()) {
            CapacityLeaseSender s = waiting.peek();
            boolean holdsNothing = s.inFlight == 0; // waiting: its lease is used up (or it never had one)
            int needed = holdsNothing ? 1 : minGrant;
            int available = available();
            if (holdsNothing && available < 1) {
                available = lendIdleGrants(s);
            }
            if (available < needed) {
                heldByHeadroom = availableByWork() >= needed;
                break;
            }
            waiting.poll();
            s.lastActivityNanos = timer.now(TimeUnit.NANOSECONDS);
            int n = Math.min(available, share);
            s.remaining = n;
            outstanding += n;
            leasesGranted.increment();
            requestsGranted.increment(n);
            LOG.trace("lease of {} to {}", n, s);
            s.emit(Lease.create(leaseTimeToLive, n));
        }
        if (heldByHeadroom && (recheck == null || recheck.isDisposed())) {
            recheck = timer.schedule(this::recheck, recheckNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Stops counting the grants of connections other than {@code borrower} that have been idle (nothing
     * in progress, no request arriving) for the idle-grant timeout, oldest first, until one request
     * is free; each grant is lent once (until used up). When none is idle long enough yet, wakes
     * once when the first one will be.
     *
     * @return what is available now
     */
    private int lendIdleGrants(CapacityLeaseSender borrower) {
        int available = 0;
        long now = timer.now(TimeUnit.NANOSECONDS);
        long wakeIn = Long.MAX_VALUE;
        for (CapacityLeaseSender h : open) {
            if (h != borrower && !h.lent && h.inFlight == 0 && h.remaining > 0) {
                long idleFor = now - h.lastActivityNanos;
                if (idleFor < idleGrantNanos) {
                    wakeIn = Math.min(wakeIn, idleGrantNanos - idleFor);
                    continue;
                }
                h.lent = true;
                outstanding -= h.remaining;
                int lent = h.remaining;
                LOG.debug("{} is idle on a lease of {}: lent to {}, which holds none", h, lent, borrower);
                available = available();
                if (available >= 1) {
                    return available;
                }
            }
        }
        if (wakeIn != Long.MAX_VALUE && (lendWake == null || lendWake.isDisposed())) {
            lendWake = timer.schedule(this::recheck, wakeIn, TimeUnit.NANOSECONDS);
        }
        return available;
    }

    private synchronized void recheck() {
        recheck = null;
        grantWaiting();
    }

    @Override
    public synchronized String toString() {
        return "ReceiveCapacity{capacity=" + totalCapacity + ", inFlight=" + inFlight + ", outstanding=" + outstanding
                + ", connections=" + open.size() + ", waiting=" + waiting.size() + "}";
    }
}
