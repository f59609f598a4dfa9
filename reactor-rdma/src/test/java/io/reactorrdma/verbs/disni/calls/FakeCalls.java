package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

import java.util.ArrayList;
import java.util.List;

/**
 * Stand-ins for DiSNI's native-backed calls: they hold the "native" request fields in plain Java
 * objects, let only what DiSNI's {@code …Mod} interfaces let change, and record executions.
 */
public final class FakeCalls {

    private FakeCalls() {
    }

    static final class Sge implements SVCPostSend.SgeMod {
        long addr;
        int length;
        int lkey;

        Sge(IbvSge s) {
            addr = s.getAddr();
            length = s.getLength();
            lkey = s.getLkey();
        }

        @Override
        public void setAddr(long a) {
            addr = a;
        }

        @Override
        public long getAddr() {
            return addr;
        }

        @Override
        public void setLength(int l) {
            length = l;
        }

        @Override
        public int getLength() {
            return length;
        }

        @Override
        public void setLkey(int k) {
            lkey = k;
        }

        @Override
        public int getLkey() {
            return lkey;
        }
    }

    static final class Rdma implements SVCPostSend.RdmaMod {
        long remoteAddr;
        int rkey;

        @Override
        public void setRemote_addr(long a) {
            remoteAddr = a;
        }

        @Override
        public long getRemote_addr() {
            return remoteAddr;
        }

        @Override
        public void setRkey(int k) {
            rkey = k;
        }

        @Override
        public int getRkey() {
            return rkey;
        }

        @Override
        public void setReserved(int r) { }

        @Override
        public int getReserved() {
            return 0;
        }
    }

    static final class Wr implements SVCPostSend.SendWRMod {
        long wrId;
        int flags;
        final int opcode;
        final int imm; // frozen, as in DiSNI
        final Rdma rdma = new Rdma();
        final List<Sge> sges = new ArrayList<>();

        Wr(IbvSendWR w) {
            wrId = w.getWr_id();
            flags = w.getSend_flags();
            opcode = w.getOpcode();
            imm = w.getImm_data();
            rdma.remoteAddr = w.getRdma().getRemote_addr();
            rdma.rkey = w.getRdma().getRkey();
            for (IbvSge s : w.getSg_list()) {
                sges.add(new Sge(s));
            }
        }

        @Override
        public void setWr_id(long id) {
            wrId = id;
        }

        @Override
        public void setSend_flags(int f) {
            flags = f;
        }

        @Override
        public long getWr_id() {
            return wrId;
        }

        @Override
        public int getNum_sge() {
            return sges.size();
        }

        @Override
        public int getOpcode() {
            return opcode;
        }

        @Override
        public int getSend_flags() {
            return flags;
        }

        @Override
        public SVCPostSend.RdmaMod getRdmaMod() {
            return rdma;
        }

        @Override
        public SVCPostSend.SgeMod getSgeMod(int i) {
            return sges.get(i);
        }
    }

    public static final class PostSend extends SVCPostSend {
        final List<Wr> wrs = new ArrayList<>();
        int executions;
        boolean freed;
        /** Snapshot of wr_ids at each execution, to see what the "NIC" got. */
        final List<long[]> posted = new ArrayList<>();

        public PostSend(List<IbvSendWR> list) {
            for (IbvSendWR w : list) {
                wrs.add(new Wr(w));
            }
        }

        @Override
        public SVCPostSend execute() {
            if (freed) {
                throw new IllegalStateException("executed after free");
            }
            executions++;
            posted.add(wrs.stream().mapToLong(w -> w.wrId).toArray());
            return this;
        }

        @Override
        public boolean isValid() {
            return !freed;
        }

        @Override
        public SVCPostSend free() {
            freed = true;
            return this;
        }

        @Override
        public SendWRMod getWrMod(int index) {
            return wrs.get(index);
        }
    }

    public static final class PostRecv extends SVCPostRecv {
        final List<IbvRecvWR> wrs;
        int executions;
        boolean freed;

        public PostRecv(List<IbvRecvWR> wrs) {
            this.wrs = wrs;
        }

        @Override
        public SVCPostRecv execute() {
            if (freed) {
                throw new IllegalStateException("executed after free");
            }
            executions++;
            return this;
        }

        @Override
        public boolean isValid() {
            return !freed;
        }

        @Override
        public SVCPostRecv free() {
            freed = true;
            return this;
        }

        @Override
        public RecvWRMod getWrMod(int index) {
            return wrs.get(index)::getWr_id;
        }
    }
}
