package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.SVCPostRecv;
import io.reactorrdma.verbs.RecvWr;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One queue pair's built {@code SVCPostRecv}s, keyed by their scatter/gather entries.
 *
 * <p>DiSNI 2.1 freezes every field of a post-receive call once it is built ({@code RecvWRMod} has
 * only a getter). The native {@code wr_id} is the queue pair's constant receive token (receives
 * complete in order, so {@link PostedWork} maps them back to the caller's wrIds), which leaves the
 * SGEs as the key: a batch that reposts the same buffers (a fixed receive ring) hits and
 * allocates nothing; a batch of buffers never posted before is built, executed and cached,
 * evicting the least recently used entry. An engine that hands receive buffers to the
 * application and posts fresh ones therefore misses — one small build per batch — until DiSNI
 * can patch receive SGEs.
 *
 * <p>Confined to the queue pair's posting thread.
 */
final class RecvCallCache {

    /** Builds a DiSNI post-receive call: {@code IbvQP.postRecv(list, null)} on hardware. */
    @FunctionalInterface
    interface Builder {
        SVCPostRecv build(List<IbvRecvWR> wrs) throws IOException;
    }

    private static final class Entry {
        long hash;
        int count;
        int[] sgeCounts;
        long[] addrs;
        int[] lens;
        int[] lkeys;
        SVCPostRecv call;
        long lastUse;
    }

    private final Builder builder;
    private final Entry[] entries;
    private int size;
    private long clock;
    private long builds;
    private long hits;

    RecvCallCache(Builder builder, int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("receive call cache capacity must be at least 1, got " + capacity);
        this.builder = builder;
        this.entries = new Entry[capacity];
    }

    /** Posts the receives with {@code token} as every native wr_id; one {@code ibv_post_recv}. */
    void post(RecvWr[] wrs, int from, int count, long token) throws IOException {
        long hash = hash(wrs, from, count);
        for (int k = 0; k < size; k++) {
            Entry e = entries[k];
            if (e.hash == hash && e.count == count && same(e, wrs, from, count)) {
                hits++;
                e.lastUse = ++clock;
                e.call.execute();
                return;
            }
        }
        builds++;
        SVCPostRecv call = builder.build(toIbv(wrs, from, count, token));
        Entry e = victim();
        if (e.call != null) e.call.free();
        int sges = 0;
        for (int i = 0; i < count; i++) sges += wrs[from + i].numSge();
        e.hash = hash;
        e.count = count;
        e.sgeCounts = new int[count];
        e.addrs = new long[sges];
        e.lens = new int[sges];
        e.lkeys = new int[sges];
        int k = 0;
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            e.sgeCounts[i] = wr.numSge();
            for (int j = 0; j < wr.numSge(); j++, k++) {
                e.addrs[k] = wr.sgeAddress(j);
                e.lens[k] = wr.sgeLength(j);
                e.lkeys[k] = wr.sgeLkey(j);
            }
        }
        e.call = call;
        e.lastUse = ++clock;
        call.execute();
    }

    void clear() {
        for (int k = 0; k < size; k++) {
            if (entries[k].call != null) {
                entries[k].call.free();
                entries[k].call = null;
            }
        }
        size = 0;
    }

    long builds() {
        return builds;
    }

    long hits() {
        return hits;
    }

    private Entry victim() {
        if (size < entries.length) {
            Entry e = new Entry();
            entries[size++] = e;
            return e;
        }
        Entry oldest = entries[0];
        for (Entry e : entries) {
            if (e.lastUse < oldest.lastUse) oldest = e;
        }
        return oldest;
    }

    private static long hash(RecvWr[] wrs, int from, int count) {
        long h = count;
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            h = h * 31 + wr.numSge();
            for (int j = 0; j < wr.numSge(); j++) {
                h = h * 31 + wr.sgeAddress(j);
                h = h * 31 + wr.sgeLength(j);
                h = h * 31 + wr.sgeLkey(j);
            }
        }
        return h;
    }

    private static boolean same(Entry e, RecvWr[] wrs, int from, int count) {
        int k = 0;
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            if (e.sgeCounts[i] != wr.numSge()) return false;
            for (int j = 0; j < wr.numSge(); j++, k++) {
                if (e.addrs[k] != wr.sgeAddress(j) || e.lens[k] != wr.sgeLength(j) || e.lkeys[k] != wr.sgeLkey(j)) return false;
            }
        }
        return true;
    }

    /** The DiSNI receive list for a batch (built only on a miss). */
    static List<IbvRecvWR> toIbv(RecvWr[] wrs, int from, int count, long token) {
        List<IbvRecvWR> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            IbvRecvWR w = new IbvRecvWR();
            w.setWr_id(token);
            w.setSg_list(DisniCodes.sgeList(wr));
            list.add(w);
        }
        return list;
    }
}
