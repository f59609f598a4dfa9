package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.SVCPostRecv;
import io.reactorrdma.verbs.work.RecvWr;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One queue pair's built {@code SVCPostRecv}s, keyed by batch shape, so that reposting receives
 * is one JNI call and allocates nothing.
 *
 * <p>DiSNI 2.1 lets no field of a post-receive call change once it is built ({@code RecvWRMod}
 * has only a getter), yet the engine reposts fresh buffers every time. So the SGEs are written
 * straight into the call's native {@code ibv_recv_wr}/{@code ibv_sge} array ({@link CommandBuffers},
 * verified against the requests the call was built from), and the key is the shape: batch length
 * and each request's SGE count. The native {@code wr_id} is the queue pair's constant receive
 * token (receives complete in order, so {@link io.reactorrdma.verbs.work.tracking.PostedWork} maps them back to the caller's wrIds).
 * Where the native array cannot be verified (another DiSNI build), the key falls back to the
 * SGEs themselves: reposting the same buffers hits, fresh buffers build one small call per batch.
 * Entries are evicted least recently used.
 *
 * <p>Confined to the queue pair's posting thread.
 */
public final class RecvCallCache {

    /** Builds a DiSNI post-receive call: {@code IbvQP.postRecv(list, null)} on hardware. */
    @FunctionalInterface
    public interface Builder {
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
        ByteBuffer cmd;
        long lastUse;
    }

    private final Builder builder;
    private final Entry[] entries;
    private int size;
    private long clock;
    private long builds;
    private long hits;
    /** Whether SGEs are written into the native requests (else they are the key); decided by the first build. */
    private boolean patchSges;
    private boolean decided;

    public RecvCallCache(Builder builder, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("receive call cache capacity must be at least 1, got " + capacity);
        }
        this.builder = builder;
        this.entries = new Entry[capacity];
    }

    /** Posts the receives with {@code token} as every native wr_id; one {@code ibv_post_recv}. */
    public void post(RecvWr[] wrs, int from, int count, long token) throws IOException {
        Entry hit = find(wrs, from, count);
        if (hit != null) {
            hits++;
            hit.lastUse = ++clock;
            if (hit.cmd != null) {
                patchSges(hit.cmd, wrs, from, count);
            }
            hit.call.execute();
            return;
        }
        builds++;
        List<IbvRecvWR> list = toIbv(wrs, from, count, token);
        SVCPostRecv call = builder.build(list);
        ByteBuffer cmd = CommandBuffers.recvBuffer(call, list);
        if (!decided) {
            decided = true;
            patchSges = cmd != null;
        } else if (patchSges && cmd == null) {
            // cannot happen with one DiSNI build; if it does, key by buffers from here on
            patchSges = false;
            clear();
        }
        Entry e = victim();
        if (e.call != null) {
            e.call.free();
        }
        int sges = 0;
        for (int i = 0; i < count; i++) {
            sges += wrs[from + i].numSge();
        }
        e.hash = hash(wrs, from, count, !patchSges);
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
        e.cmd = patchSges ? cmd : null;
        e.lastUse = ++clock;
        call.execute();
    }

    private Entry find(RecvWr[] wrs, int from, int count) {
        long hash = hash(wrs, from, count, !patchSges);
        for (int k = 0; k < size; k++) {
            Entry e = entries[k];
            if (e.hash == hash && e.count == count && same(e, wrs, from, count, !patchSges)) {
                return e;
            }
        }
        return null;
    }

    /** The native request array of the cached call for this batch's shape (tests: what the NIC would read). */
    ByteBuffer nativeBuffer(RecvWr[] wrs, int from, int count) {
        Entry e = find(wrs, from, count);
        return e == null ? null : e.cmd;
    }

    private static void patchSges(ByteBuffer cmd, RecvWr[] wrs, int from, int count) {
        int k = 0;
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            for (int j = 0, n = wr.numSge(); j < n; j++, k++) {
                CommandBuffers.putRecvSge(cmd, count, k, wr.sgeAddress(j), wr.sgeLength(j), wr.sgeLkey(j));
            }
        }
    }

    public void clear() {
        for (int k = 0; k < size; k++) {
            if (entries[k].call != null) {
                entries[k].call.free();
                entries[k].call = null;
                entries[k].cmd = null;
            }
        }
        size = 0;
    }

    public long builds() {
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
            if (e.lastUse < oldest.lastUse) {
                oldest = e;
            }
        }
        return oldest;
    }

    private static long hash(RecvWr[] wrs, int from, int count, boolean withBuffers) {
        long h = count;
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            h = h * 31 + wr.numSge();
            for (int j = 0; withBuffers && j < wr.numSge(); j++) {
                h = h * 31 + wr.sgeAddress(j);
                h = h * 31 + wr.sgeLength(j);
                h = h * 31 + wr.sgeLkey(j);
            }
        }
        return h;
    }

    private static boolean same(Entry e, RecvWr[] wrs, int from, int count, boolean withBuffers) {
        int k = 0;
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            if (e.sgeCounts[i] != wr.numSge()) {
                return false;
            }
            for (int j = 0; withBuffers && j < wr.numSge(); j++, k++) {
                if (e.addrs[k] != wr.sgeAddress(j) || e.lens[k] != wr.sgeLength(j) || e.lkeys[k] != wr.sgeLkey(j)) {
                    return false;
                }
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
