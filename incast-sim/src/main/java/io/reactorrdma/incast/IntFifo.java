package io.reactorrdma.incast;

/** A growable ring of ints (packet ids, message sizes); allocation only when it grows. */
final class IntFifo {

    private int[] items = new int[16];
    private int head;
    private int size;

    void add(int value) {
        if (size == items.length) {
            int[] bigger = new int[items.length * 2];
            for (int i = 0; i < size; i++) {
                bigger[i] = items[(head + i) & (items.length - 1)];
            }
            items = bigger;
            head = 0;
        }
        items[(head + size++) & (items.length - 1)] = value;
    }

    /** Removes and returns the head; the caller checks {@link #isEmpty()} first. */
    int poll() {
        int value = items[head];
        head = (head + 1) & (items.length - 1);
        size--;
        return value;
    }

    int peek() {
        return items[head];
    }

    /** Replaces the head's value. */
    void setHead(int value) {
        items[head] = value;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }
}
