package io.reactorrdma.perf.incast;

import java.util.Arrays;

/**
 * A binary min-heap of events (time, sequence, kind, a, b) on primitive arrays. Ties in time are broken by insertion
 * sequence, so one seed gives one order. Growing doubles the arrays; in steady state push and pop allocate nothing.
 * The head's fields are read through {@link #time()}, {@link #kind()}, {@link #a()}, {@link #b()} after {@link #pop()}.
 */
public final class EventQueue {

    /** Initial capacity in events. */
    public static final int DEFAULT_CAPACITY = 1024;

    private long[] times;
    private long[] seqs;
    private int[] kinds;
    private int[] as;
    private int[] bs;
    private int size;
    private long nextSeq;

    private long time;
    private int kind;
    private int a;
    private int b;

    /** An empty queue of {@value #DEFAULT_CAPACITY} slots. */
    public EventQueue() {
        this(DEFAULT_CAPACITY);
    }

    /** An empty queue of {@code capacity} slots (it grows as needed). */
    public EventQueue(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + ": must be positive");
        }
        times = new long[capacity];
        seqs = new long[capacity];
        kinds = new int[capacity];
        as = new int[capacity];
        bs = new int[capacity];
    }

    /** Schedules an event. */
    public void push(long atPs, int eventKind, int eventA, int eventB) {
        if (size == times.length) {
            grow();
        }
        long seq = nextSeq++;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(atPs, seq, times[parent], seqs[parent])) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        set(i, atPs, seq, eventKind, eventA, eventB);
    }

    /** Removes the earliest event and exposes its fields; false when empty. */
    public boolean pop() {
        if (size == 0) {
            return false;
        }
        time = times[0];
        kind = kinds[0];
        a = as[0];
        b = bs[0];
        int last = --size;
        if (last > 0) {
            siftDownLast(last);
        }
        return true;
    }

    /** The earliest event's time without removing it; {@link Long#MAX_VALUE} when empty. */
    public long peekTime() {
        return size == 0 ? Long.MAX_VALUE : times[0];
    }

    /** Events waiting. */
    public int size() {
        return size;
    }

    /** The popped event's time in picoseconds. */
    public long time() {
        return time;
    }

    /** The popped event's kind. */
    public int kind() {
        return kind;
    }

    /** The popped event's first argument. */
    public int a() {
        return a;
    }

    /** The popped event's second argument. */
    public int b() {
        return b;
    }

    private void siftDownLast(int last) {
        long t = times[last];
        long s = seqs[last];
        int k = kinds[last];
        int ea = as[last];
        int eb = bs[last];
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && less(times[right], seqs[right], times[child], seqs[child])) {
                child = right;
            }
            if (!less(times[child], seqs[child], t, s)) {
                break;
            }
            move(child, i);
            i = child;
        }
        set(i, t, s, k, ea, eb);
    }

    private static boolean less(long t1, long s1, long t2, long s2) {
        return t1 < t2 || (t1 == t2 && s1 < s2);
    }

    private void move(int from, int to) {
        times[to] = times[from];
        seqs[to] = seqs[from];
        kinds[to] = kinds[from];
        as[to] = as[from];
        bs[to] = bs[from];
    }

    private void set(int i, long t, long s, int k, int ea, int eb) {
        times[i] = t;
        seqs[i] = s;
        kinds[i] = k;
        as[i] = ea;
        bs[i] = eb;
    }

    private void grow() {
        int capacity = times.length * 2;
        times = Arrays.copyOf(times, capacity);
        seqs = Arrays.copyOf(seqs, capacity);
        kinds = Arrays.copyOf(kinds, capacity);
        as = Arrays.copyOf(as, capacity);
        bs = Arrays.copyOf(bs, capacity);
    }
}
