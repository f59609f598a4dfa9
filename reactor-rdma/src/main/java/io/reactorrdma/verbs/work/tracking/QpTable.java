package io.reactorrdma.verbs.work.tracking;

import java.util.ArrayDeque;

/**
 * The context's queue pairs by index, so a completion's token finds its queue pair without a
 * map lookup: the poller reads a volatile array; creating and removing entries (connection setup,
 * not the data path) is synchronized. A freed index is reused with the next generation, so a
 * late completion of a destroyed queue pair is recognised and dropped.
 */
public final class QpTable {

    private volatile QpRecord[] records = new QpRecord[16];
    private final int[] generations = new int[WrTokens.MAX_QPS > 1 << 16 ? 1 << 16 : WrTokens.MAX_QPS];
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int next;

    public synchronized QpRecord add(int sendDepth, int recvDepth) {
        int index;
        if (!free.isEmpty()) {
            index = free.poll();
        } else {
            if (next == generations.length) {
                throw new IllegalStateException("this context already has " + next + " queue pairs; close some first");
            }
            index = next++;
        }
        int gen = (generations[index] + 1) & WrTokens.GENERATION_MASK;
        generations[index] = gen;
        QpRecord r = new QpRecord(index, gen, new PostedWork(sendDepth, recvDepth));
        QpRecord[] a = records;
        if (index >= a.length) {
            a = java.util.Arrays.copyOf(a, Math.max(a.length * 2, index + 1));
        } else {
            a = a.clone();
        }
        a[index] = r;
        records = a;
        return r;
    }

    public synchronized void remove(QpRecord r) {
        QpRecord[] a = records;
        if (r.index < a.length && a[r.index] == r) {
            a = a.clone();
            a[r.index] = null;
            records = a;
            free.add(r.index);
        }
    }

    /** The live queue pair a token names, or null for a destroyed one. Allocation-free. */
    QpRecord lookup(long token) {
        int index = WrTokens.qpIndex(token);
        QpRecord[] a = records;
        if (index >= a.length) {
            return null;
        }
        QpRecord r = a[index];
        return r != null && r.generation == WrTokens.generation(token) ? r : null;
    }
}
