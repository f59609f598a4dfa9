package io.reactorrdma.backpressure;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The receiver's half of receive-credit flow control, driven by demand (paper
 * §5.4.2): it decides when consumed receive buffers go back to the peer as credits.
 *
 * <p>The peer starts with {@code depth} credits (our receive-queue depth). Every message it sends
 * consumes one of our receives; the engine reports that with {@link #received()} (a data message,
 * handed to the socket's subscriber) or {@link #receivedControl()} (a credit update, heartbeat or
 * other control message). A freed receive goes back to the peer as a credit only when:
 * <ul>
 *   <li><b>there is demand</b> for data: a data receive is returned only against a unit of demand
 *       the subscriber {@linkplain #request(long) requested}, so a subscriber that stops requesting
 *       stops its sender once the peer's credits run out — at most {@code depth} messages are then
 *       in flight or waiting here, and memory on both sides stays bounded. Control receives need no
 *       demand: they never reach the subscriber, and holding them back would strand the peer's
 *       control reserve ({@link CreditCounter}).</li>
 *   <li><b>a batch is ready</b>: as in the paper, credits go back in batches of
 *       {@code k = depth / 2} — the engine posts the replacement receives in one call and returns
 *       the credits in one message — so posting calls and credit messages are rare.</li>
 * </ul>
 * So the credits returnable now are {@code min(freed data receives, outstanding demand) + freed
 * control receives} ({@link #returnable()}), and {@link #takeCredits()} takes them all once at
 * least a batch is returnable.
 *
 * <p><b>How the engine uses it.</b> On every outgoing SEND it calls {@link #takeCredits()} and
 * piggybacks the result in the header (0 most of the time). After its completion work, if
 * {@link #creditMessageDue()} and no outgoing traffic will carry the credits, it sends an explicit
 * credit message (taking a control credit from its own {@link CreditCounter}) carrying
 * {@link #takeCredits()}. Demand arrives from application threads; {@link #onCreditsDue(Runnable)}
 * tells the engine when a request made a batch returnable, so it can wake up and send. Before a
 * credit reaches the peer the engine must have posted that many fresh receives (otherwise the
 * peer's SEND would meet receiver-not-ready). An engine that prefers returning credits promptly to
 * full posting batches may piggyback {@link #takeCredits(int) takeCredits(1)}; doing so whenever
 * control receives are pending keeps the peer's control reserve topped up even when this side's
 * subscriber is paused.
 *
 * <p><b>Why no deadlock.</b> While demand is unmet and nothing waits here, the peer holds every
 * credit that is not freed; with fewer than a batch freed it therefore holds more than
 * {@code depth - k} credits and can keep sending; with a batch freed the credits go back.
 *
 * <p>The class can serve an engine (one receive queue) or a socket (message credits) alike; it has
 * no RDMA types. Thread-safe and lock-free: the state is one {@code long} updated by
 * compare-and-set — freed data receives (16 bits), freed control receives (16 bits) and outstanding
 * demand (31 bits, saturating: demand of {@value #UNBOUNDED_DEMAND} or more is unbounded, as
 * Reactor treats {@code Long.MAX_VALUE}); nothing allocates.
 */
public final class CreditReturner {

    /** The largest supported depth: freed receive counts are packed in 16 bits. */
    public static final int MAX_DEPTH = 0xFFFF;

    /** Outstanding demand at or above this is unbounded and is never used up. */
    public static final long UNBOUNDED_DEMAND = 0x7FFF_FFFFL;

    private static final int CONTROL_SHIFT = 0;
    private static final int DATA_SHIFT = 16;
    private static final int DEMAND_SHIFT = 32;
    private static final long COUNT_MASK = 0xFFFFL;

    private final int depth;
    private final int batchSize;
    private final AtomicLong state = new AtomicLong();
    private volatile Runnable dueListener;

    /** A returner for a receive queue of {@code depth} buffers, returning credits in batches of {@code depth / 2} (at least 1). */
    public CreditReturner(int depth) {
        this(depth, Math.max(1, depth / 2));
    }

    /**
     * @param depth     the receive-queue depth: the credits the peer started with, 1 to {@value #MAX_DEPTH}
     * @param batchSize how many returnable credits make a batch, 1 to {@code depth}
     */
    public CreditReturner(int depth, int batchSize) {
        if (depth < 1 || depth > MAX_DEPTH) {
            throw new IllegalArgumentException("depth must be in [1, " + MAX_DEPTH + "], was " + depth);
        }
        if (batchSize < 1 || batchSize > depth) {
            throw new IllegalArgumentException("batchSize must be in [1, depth=" + depth + "], was " + batchSize);
        }
        this.depth = depth;
        this.batchSize = batchSize;
    }

    /** One receive was consumed by a data message (handed to the subscriber). */
    public void received() {
        add(1, DATA_SHIFT);
    }

    /**
     * {@code n} receives were consumed by data messages.
     *
     * @throws IllegalArgumentException when {@code n} is negative
     * @throws IllegalStateException    when more receives are freed than the peer had credits — the
     *                                  peer sent without a credit (a protocol error); nothing changes
     */
    public void received(int n) {
        add(n, DATA_SHIFT);
    }

    /** One receive was consumed by a control message (credit update, heartbeat, ...). */
    public void receivedControl() {
        add(1, CONTROL_SHIFT);
    }

    /** {@code n} receives were consumed by control messages; errors as for {@link #received(int)}. */
    public void receivedControl(int n) {
        add(n, CONTROL_SHIFT);
    }

    /**
     * The subscriber requested {@code n} more messages: that many more data credits may go back.
     * Saturates at unbounded.
     *
     * @throws IllegalArgumentException when {@code n} is not positive (Reactive Streams §3.9)
     */
    public void request(long n) {
        if (n <= 0) {
            throw new IllegalArgumentException("demand must be positive (Reactive Streams §3.9), was " + n);
        }
        for (;;) {
            long s = state.get();
            long d = demand(s);
            long nd = d == UNBOUNDED_DEMAND || n >= UNBOUNDED_DEMAND - d ? UNBOUNDED_DEMAND : d + n;
            long ns = (s & ~(UNBOUNDED_DEMAND << DEMAND_SHIFT)) | (nd << DEMAND_SHIFT);
            if (state.compareAndSet(s, ns)) {
                notifyIfDue(s, ns);
                return;
            }
        }
    }

    /**
     * Takes every returnable credit once at least a batch is returnable: the number to piggyback on
     * the next outgoing message or to put in a credit message. The engine must post that many fresh
     * receives before the credits reach the peer.
     *
     * @return the credits taken, 0 when fewer than {@link #batchSize()} are returnable
     */
    public int takeCredits() {
        return takeCredits(batchSize);
    }

    /**
     * Takes every returnable credit when at least {@code minimum} are returnable; for piggybacking
     * below the batch size.
     *
     * @return the credits taken, or 0
     * @throws IllegalArgumentException when {@code minimum} is below 1
     */
    public int takeCredits(int minimum) {
        if (minimum < 1) {
            throw new IllegalArgumentException("minimum must be at least 1, was " + minimum);
        }
        for (;;) {
            long s = state.get();
            int r = returnable(s);
            if (r < minimum) {
                return 0;
            }
            long d = demand(s);
            int data = data(s);
            int dataTaken = (int) Math.min(data, d);
            long nd = d == UNBOUNDED_DEMAND ? d : d - dataTaken;
            long ns = (nd << DEMAND_SHIFT) | ((long) (data - dataTaken) << DATA_SHIFT);
            if (state.compareAndSet(s, ns)) {
                return r;
            }
        }
    }

    /**
     * Credits that could go back now, batch or not: {@code min(freed data receives, outstanding
     * demand) + freed control receives}.
     */
    public int returnable() {
        return returnable(state.get());
    }

    /**
     * True when at least a batch is returnable: the engine must send it — piggybacked on outgoing
     * traffic, or in an explicit credit message when there is none.
     */
    public boolean creditMessageDue() {
        return returnable(state.get()) >= batchSize;
    }

    /**
     * Sets what runs when a {@link #request}, {@link #received} or {@link #receivedControl} call
     * makes a batch returnable (on that caller's thread); {@code null} removes it. It may run more
     * than once per batch (calls race), so the engine treats it as a wake-up and calls
     * {@link #takeCredits()}, which returns 0 when someone else took the credits. It must be quick
     * and must not throw.
     */
    public void onCreditsDue(Runnable listener) {
        this.dueListener = listener;
    }

    /** Receives consumed (data and control) whose credits have not gone back yet; at most {@link #depth()}. */
    public int freed() {
        long s = state.get();
        return data(s) + control(s);
    }

    /** Demand requested and not yet matched by a returned data credit; {@code Long.MAX_VALUE} when unbounded. */
    public long outstandingDemand() {
        long d = demand(state.get());
        return d == UNBOUNDED_DEMAND ? Long.MAX_VALUE : d;
    }

    /** The receive-queue depth: the credits the peer started with. */
    public int depth() {
        return depth;
    }

    /** How many returnable credits make a batch ({@code depth / 2} by default). */
    public int batchSize() {
        return batchSize;
    }

    private void add(int n, int shift) {
        if (n < 0) {
            throw new IllegalArgumentException("receives consumed must not be negative, was " + n);
        }
        if (n == 0) {
            return;
        }
        for (;;) {
            long s = state.get();
            int freed = data(s) + control(s);
            if (n > depth - freed) {
                throw new IllegalStateException("receive overrun: " + n + " more receives consumed with "
                        + freed + " of depth " + depth + " already freed and not returned"
                        + " (the peer sent without a credit)");
            }
            long ns = s + ((long) n << shift);
            if (state.compareAndSet(s, ns)) {
                notifyIfDue(s, ns);
                return;
            }
        }
    }

    private void notifyIfDue(long before, long after) {
        if (returnable(before) < batchSize && returnable(after) >= batchSize) {
            Runnable l = dueListener;
            if (l != null) {
                l.run();
            }
        }
    }

    private static int control(long s) {
        return (int) ((s >>> CONTROL_SHIFT) & COUNT_MASK);
    }

    private static int data(long s) {
        return (int) ((s >>> DATA_SHIFT) & COUNT_MASK);
    }

    private static long demand(long s) {
        return s >>> DEMAND_SHIFT;
    }

    private static int returnable(long s) {
        return (int) Math.min(data(s), demand(s)) + control(s);
    }

    @Override
    public String toString() {
        long s = state.get();
        long d = demand(s);
        return "CreditReturner[depth=" + depth + ", batch=" + batchSize + ", freedData=" + data(s)
                + ", freedControl=" + control(s) + ", demand=" + (d == UNBOUNDED_DEMAND ? "unbounded" : d) + "]";
    }
}
