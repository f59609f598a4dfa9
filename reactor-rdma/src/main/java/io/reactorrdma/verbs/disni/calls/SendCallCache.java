package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostSend;
import io.reactorrdma.verbs.work.SendWr;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One queue pair's built {@code SVCPostSend}s, keyed by batch shape, so that steady-state posting
 * is one JNI call ({@code ibv_post_send} on the whole chain) and allocates nothing.
 *
 * <p>DiSNI serialises a batch into a native {@code ibv_send_wr[]} when the call is built and then
 * lets only some fields change through {@code getWrMod(i)}: {@code wr_id}, {@code send_flags}
 * (signaled and solicited, patched per post, so neither is part of the shape),
 * the remote address and rkey, and each SGE's address, length and lkey. The opcode, the SGE counts
 * and the batch length are frozen, so they are the <em>shape</em>, the key; everything else is
 * patched into the cached call before each {@code execute()}. The immediate data has no setter
 * either, but every rendezvous carries a fresh one, so it is written straight into the call's
 * native request array ({@link CommandBuffers}, verified against the requests the call was built
 * from). Where that array cannot be verified (another DiSNI build), the immediate becomes part of
 * the key, as a last resort: correct, but each new immediate builds a call. Entries are evicted
 * least-recently-used and {@code free()}d; a batch longer than any cacheable one is built,
 * executed and freed.
 *
 * <p>Confined to the queue pair's posting thread.
 */
public final class SendCallCache {

    /** Builds a DiSNI post-send call for a list of requests: {@code IbvQP.postSend(list, null)} on hardware. */
    @FunctionalInterface
    public interface Builder {
        SVCPostSend build(List<IbvSendWR> wrs) throws IOException;
    }

    private static final class Entry {
        long hash;
        int count;
        final byte[] opcodes;
        final byte[] sges;
        final int[] imms;
        SVCPostSend call;
        ByteBuffer cmd;
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
    /** Whether immediates are written into the native requests (else they are part of the key); decided by the first build. */
    private boolean patchImm;
    private boolean decided;

    public SendCallCache(Builder builder, int capacity, int maxBatch) {
        if (capacity < 1) {
            throw new IllegalArgumentException("send call cache capacity must be at least 1, got " + capacity);
        }
        this.builder = builder;
        this.entries = new Entry[capacity];
        for (int i = 0; i < capacity; i++) {
            entries[i] = new Entry(maxBatch);
        }
    }

    /**
     * Posts {@code wrs[from..from+count)} with {@code tokens[0..count)} as their native wr_ids:
     * patches a cached call of the same shape, or builds one. One {@code ibv_post_send}.
     */
    public void post(SendWr[] wrs, int from, int count, long[] tokens) throws IOException {
        long hash = shapeHash(wrs, from, count, !patchImm);
        Entry e = find(hash, wrs, from, count);
        if (e != null) {
            hits++;
            e.lastUse = ++clock;
            patch(e.call, wrs, from, count, tokens);
            if (e.cmd != null) {
                patchImm(e.cmd, wrs, from, count);
            }
            e.call.execute();
            return;
        }
        builds++;
        List<IbvSendWR> list = toIbv(wrs, from, count, tokens);
        SVCPostSend call = builder.build(list);
        ByteBuffer cmd = CommandBuffers.sendBuffer(call, list);
        if (!decided) {
            decided = true;
            patchImm = cmd != null;
            hash = shapeHash(wrs, from, count, !patchImm);
        } else if (patchImm && cmd == null) {
            // cannot happen with one DiSNI build; if it does, key by immediates from here on
            patchImm = false;
            clear();
            hash = shapeHash(wrs, from, count, true);
        }
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
        slot.cmd = patchImm ? cmd : null;
        slot.lastUse = ++clock;
        call.execute();
    }

    /** The native request array of the cached call for this batch's shape (tests: what the NIC would read). */
    ByteBuffer nativeBuffer(SendWr[] wrs, int from, int count) {
        Entry e = find(shapeHash(wrs, from, count, !patchImm), wrs, from, count);
        return e == null ? null : e.cmd;
    }

    private static void patchImm(ByteBuffer cmd, SendWr[] wrs, int from, int count) {
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            if (wr.opcode().hasImmediate()) {
                CommandBuffers.putImm(cmd, i, DisniCodes.immToWire(wr.immData()));
            }
        }
    }

    /** Frees every cached call (when the queue pair closes). */
    public void clear() {
        for (Entry e : entries) {
            if (e.call != null) {
                e.call.free();
                e.call = null;
                e.cmd = null;
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

    int size() {
        return size;
    }

    static long shapeHash(SendWr[] wrs, int from, int count, boolean withImm) {
        long h = count;
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            h = h * 31 + wr.opcode().ibv();
            h = h * 31 + wr.numSge();
            if (withImm && wr.opcode().hasImmediate()) {
                h = h * 31 + wr.immData();
            }
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

    private boolean sameShape(Entry e, SendWr[] wrs, int from, int count) {
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            if (e.opcodes[i] != wr.opcode().ibv() || e.sges[i] != wr.numSge()) {
                return false;
            }
            if (!patchImm && wr.opcode().hasImmediate() && e.imms[i] != wr.immData()) {
                return false;
            }
        }
        return true;
    }

    private Entry victim() {
        if (size < entries.length) {
            return entries[size++];
        }
        Entry oldest = entries[0];
        for (Entry e : entries) {
            if (e.lastUse < oldest.lastUse) {
                oldest = e;
            }
        }
        return oldest;
    }

    /** Writes the mutable fields of every request into the cached native chain. */
    static void patch(SVCPostSend call, SendWr[] wrs, int from, int count, long[] tokens) throws IOException {
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            SVCPostSend.SendWRMod mod = call.getWrMod(i);
            mod.setWr_id(tokens[i]);
            mod.setSend_flags(DisniCodes.sendFlags(wr.signaled(), wr.solicited()));
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
        w.setSend_flags(DisniCodes.sendFlags(wr.signaled(), wr.solicited()));
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
