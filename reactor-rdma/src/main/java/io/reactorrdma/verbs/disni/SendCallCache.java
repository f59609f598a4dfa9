package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostSend;
import io.reactorrdma.verbs.SendWr;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One queue pair's built {@code SVCPostSend}s, keyed by batch shape, so that steady-state posting
 * is one JNI call ({@code ibv_post_send} on the whole chain) and allocates nothing.
 *
 * <p>DiSNI serialises a batch into a native {@code ibv_send_wr[]} when the call is built and then
 * lets only some fields change through {@code getWrMod(i)}: {@code wr_id}, {@code send_flags},
 * the remote address and rkey, and each SGE's address, length and lkey. The opcode, the
 * immediate data, the SGE counts and the batch length are frozen. So the <em>shape</em> — batch
 * length, and per request its opcode, SGE count and (for {@code *_WITH_IMM}) immediate value —
 * is the key; everything else is patched into the cached call before each {@code execute()}.
 * Signalling is patched, not keyed. A distinct immediate value is a distinct shape: batches that
 * carry ever-changing immediates miss, and each builds a new call, cached in turn (correct, but
 * allocating). Entries are evicted least-recently-used and {@code free()}d; a batch longer than
 * any cacheable one is built, executed and freed.
 *
 * <p>Confined to the queue pair's posting thread.
 */
final class SendCallCache {

    /** Builds a DiSNI post-send call for a list of requests: {@code IbvQP.postSend(list, null)} on hardware. */
    @FunctionalInterface
    interface Builder {
        SVCPostSend build(List<IbvSendWR> wrs) throws IOException;
    }

    private static final class Entry {
        long hash;
        int count;
        final byte[] opcodes;
        final byte[] sges;
        final int[] imms;
        SVCPostSend call;
        long lastUse;

        Entry(int maxBatch) {
            opcodes = new byte[maxBatch];
            sges = new byte[maxBatch];
            imms = new int[maxBatch];
        }
    }

    private final Builder builder;
    private final Entry[] entries;
    private int size;
    private long clock;
    private long builds;
    private long hits;

    SendCallCache(Builder builder, int capacity, int maxBatch) {
        if (capacity < 1) throw new IllegalArgumentException("send call cache capacity must be at least 1, got " + capacity);
        this.builder = builder;
        this.entries = new Entry[capacity];
        for (int i = 0; i < capacity; i++) entries[i] = new Entry(maxBatch);
    }

    /**
     * Posts {@code wrs[from..from+count)} with {@code tokens[0..count)} as their native wr_ids:
     * patches a cached call of the same shape, or builds one. One {@code ibv_post_send}.
     */
    void post(SendWr[] wrs, int from, int count, long[] tokens) throws IOException {
        long hash = shapeHash(wrs, from, count);
        Entry e = find(hash, wrs, from, count);
        if (e != null) {
            hits++;
            e.lastUse = ++clock;
            patch(e.call, wrs, from, count, tokens);
            e.call.execute();
            return;
        }
        builds++;
        SVCPostSend call = builder.build(toIbv(wrs, from, count, tokens));
        if (count > entries[0].opcodes.length) {
            try {
                call.execute(); // longer than any cacheable batch: use once
            } finally {
                call.free();
            }
            return;
        }
        Entry slot = victim();
        if (slot.call != null) {
            slot.call.free();
        }
        slot.hash = hash;
        slot.count = count;
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            slot.opcodes[i] = (byte) wr.opcode().ibv();
            slot.sges[i] = (byte) wr.numSge();
            slot.imms[i] = wr.opcode().hasImmediate() ? wr.immData() : 0;
        }
        slot.call = call;
        slot.lastUse = ++clock;
        call.execute();
    }

    /** Frees every cached call (when the queue pair closes). */
    void clear() {
        for (Entry e : entries) {
            if (e.call != null) {
                e.call.free();
                e.call = null;
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

    int size() {
        return size;
    }

    static long shapeHash(SendWr[] wrs, int from, int count) {
        long h = count;
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            h = h * 31 + wr.opcode().ibv();
            h = h * 31 + wr.numSge();
            if (wr.opcode().hasImmediate()) h = h * 31 + wr.immData();
        }
        return h;
    }

    private Entry find(long hash, SendWr[] wrs, int from, int count) {
        for (int k = 0; k < size; k++) {
            Entry e = entries[k];
            if (e.hash == hash && e.count == count && sameShape(e, wrs, from, count)) {
                return e;
            }
        }
        return null;
    }

    private static boolean sameShape(Entry e, SendWr[] wrs, int from, int count) {
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            if (e.opcodes[i] != wr.opcode().ibv() || e.sges[i] != wr.numSge()) return false;
            if (wr.opcode().hasImmediate() && e.imms[i] != wr.immData()) return false;
        }
        return true;
    }

    private Entry victim() {
        if (size < entries.length) {
            return entries[size++];
        }
        Entry oldest = entries[0];
        for (Entry e : entries) {
            if (e.lastUse < oldest.lastUse) oldest = e;
        }
        return oldest;
    }

    /** Writes the mutable fields of every request into the cached native chain. */
    static void patch(SVCPostSend call, SendWr[] wrs, int from, int count, long[] tokens) throws IOException {
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            SVCPostSend.SendWRMod mod = call.getWrMod(i);
            mod.setWr_id(tokens[i]);
            mod.setSend_flags(DisniCodes.sendFlags(wr.signaled()));
            if (wr.opcode().isRdma()) {
                SVCPostSend.RdmaMod rdma = mod.getRdmaMod();
                rdma.setRemote_addr(wr.remoteAddress());
                rdma.setRkey(wr.rkey());
            }
            for (int j = 0, n = wr.numSge(); j < n; j++) {
                SVCPostSend.SgeMod sge = mod.getSgeMod(j);
                sge.setAddr(wr.sgeAddress(j));
                sge.setLength(wr.sgeLength(j));
                sge.setLkey(wr.sgeLkey(j));
            }
        }
    }

    /** The DiSNI request list for a batch (built only on a cache miss). */
    static List<IbvSendWR> toIbv(SendWr[] wrs, int from, int count, long[] tokens) {
        List<IbvSendWR> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(toIbv(wrs[from + i], tokens[i]));
        }
        return list;
    }

    static IbvSendWR toIbv(SendWr wr, long token) {
        IbvSendWR w = new IbvSendWR();
        w.setWr_id(token);
        w.setOpcode(DisniCodes.opcodeToIbv(wr.opcode()));
        w.setSend_flags(DisniCodes.sendFlags(wr.signaled()));
        if (wr.opcode().hasImmediate()) {
            w.setImm_data(DisniCodes.immToWire(wr.immData()));
        }
        if (wr.opcode().isRdma()) {
            w.getRdma().setRemote_addr(wr.remoteAddress());
            w.getRdma().setRkey(wr.rkey());
        }
        w.setSg_list(DisniCodes.sgeList(wr));
        return w;
    }
}
