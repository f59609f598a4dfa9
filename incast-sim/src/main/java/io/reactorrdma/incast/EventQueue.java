package io.reactorrdma.incast;

import java.util.Arrays;

/**
 * A binary min-heap of events (time, sequence, kind, a, b) on primitive arrays. Ties in time are broken by insertion
 * sequence, so one seed gives one order. Three arrays per slot: the time, the sequence with the kind in its low
 * {@value #KIND_BITS} bits (so one comparison of that long orders ties), and a and b packed into one long. Growing
 * doubles the arrays; in steady state push and pop allocate nothing.
 * The head's fields are read through {@link #time()}, {@link #kind()}, {@link #a()}, {@link #b()} after {@link #pop()}.
 */
public final class EventQueue {

    /** Initial capacity in events. */
    public static final int DEFAULT_CAPACITY = 1024;
    /** Bits of the kind stored under the sequence number; kinds are 0 .. 2^KIND_BITS − 1. */
    public static final int KIND_BITS = 4;

    private static final int KIND_MASK = (1 << KIND_BITS) - 1;

    private long[] times;
    private long[] seqKinds;
    private long[] args;
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
        seqKinds = new long[capacity];
        args = new long[capacity];
    }

    /** Schedules an event; {@code eventKind} is 0 .. 2^{@value #KIND_BITS} − 1. */
    public void push(long atPs, int eventKind, int eventA, int eventB) {
        if ((eventKind & ~KIND_MASK) != 0) {
            throw new IllegalArgumentException("event kind " + eventKind + ": must be 0.." + KIND_MASK);
        }
        if (size == times.length) {
            grow();
        }
        long seqKind = (nextSeq++ << KIND_BITS) | eventKind;
        long packed = ((long) eventA << 32) | (eventB & 0xFFFF_FFFFL);
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(atPs, seqKind, times[parent], seqKinds[parent])) {
                break;
            }
            times[i] = times[parent];
            seqKinds[i] = seqKinds[parent];
            args[i] = args[parent];
            i = parent;
        }
        times[i] = atPs;
        seqKinds[i] = seqKind;
        args[i] = packed;
    }

    /** Removes the earliest event and exposes its fields; false when empty. */
    public boolean pop() {
        if (size == 0) {
            return false;
        }
        time = times[0];
        kind = (int) (seqKinds[0] & KIND_MASK);
        long packed = args[0];
        a = (int) (packed >> 32);
        b = (int) packed;
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
        long s = seqKinds[last];
        long packed = args[last];
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && less(times[right], seqKinds[right], times[child], seqKinds[child])) {
                child = right;
            }
            if (!less(times[child], seqKinds[child], t, s)) {
                break;
            }
            times[i] = times[child];
            seqKinds[i] = seqKinds[child];
            args[i] = args[child];
            i = child;
        }
        times[i] = t;
        seqKinds[i] = s;
        args[i] = packed;
    }

    private static boolean less(long t1, long s1, long t2, long s2) {
        return t1 < t2 || (t1 == t2 && s1 < s2);
    }

    private void grow() {
        int capacity = times.length * 2;
        times = Arrays.copyOf(times, capacity);
        seqKinds = Arrays.copyOf(seqKinds, capacity);
        args = Arrays.copyOf(args, capacity);
    }
}
