package io.reactorrdma.verbs.soft.fault;

/**
 * A test's switch that delays or drops the completions of one queue pair of the context it is
 * configured on ({@link SoftFaults#withCompletionFault}): {@link #delay} holds them back (polls
 * skip them; send completions are kept aside in order) until {@link #deliver()}; {@link #drop}
 * discards them for good, as a broken provider that never flushes would. Thread-safe; only the
 * queue pair named is affected.
 */
public final class CompletionFault {

    public static final int NONE = 0;
    public static final int DELAY = 1;
    public static final int DROP = 2;

    private volatile int qpn = -1;
    private volatile int mode = NONE;
    private volatile long dropped;

    /** Holds back every completion of queue pair {@code qpn} until {@link #deliver()}. */
    public synchronized void delay(int qpn) {
        this.mode = NONE;
        this.qpn = qpn;
        this.mode = DELAY;
    }

    /** Discards every later completion of queue pair {@code qpn} (its send slots are still retired). */
    public synchronized void drop(int qpn) {
        this.mode = NONE;
        this.qpn = qpn;
        this.mode = DROP;
    }

    /** Ends the fault: completions held back are delivered by the next polls. */
    public synchronized void deliver() {
        mode = NONE;
    }

    /** Completions discarded so far. */
    public long dropped() {
        return dropped;
    }

    /** What to do with a completion of queue pair {@code q}: {@link #NONE}, {@link #DELAY} or {@link #DROP}. */
    public int actionFor(int q) {
        int m = mode;
        return m != NONE && q == qpn ? m : NONE;
    }

    public void countDropped() {
        dropped++;
    }

    @Override
    public String toString() {
        return "CompletionFault{qpn=" + qpn + ", mode=" + (mode == DELAY ? "delay" : mode == DROP ? "drop" : "none") + "}";
    }
}
