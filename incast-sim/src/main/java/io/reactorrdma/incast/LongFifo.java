package io.reactorrdma.incast;

/** A growable ring of longs (post times); allocation only when it grows. */
final class LongFifo {

    private long[] items = new long[16];
    private int head;
    private int size;

    void add(long value) {
        if (size == items.length) {
            long[] bigger = new long[items.length * 2];
            for (int i = 0; i < size; i++) {
                bigger[i] = items[(head + i) & (items.length - 1)];
            }
            items = bigger;
            head = 0;
        }
        items[(head + size++) & (items.length - 1)] = value;
    }

    /** Removes and returns the head; the caller checks {@link #isEmpty()} first. */
    long poll() {
        long value = items[head];
        head = (head + 1) & (items.length - 1);
        size--;
        return value;
    }

    boolean isEmpty() {
        return size == 0;
    }
}
