package io.reactorrdma.verbs.work;


/**
 * A reusable send work request ({@code struct ibv_send_wr}). Fill it, pass a batch of them to
 * {@link io.reactorrdma.verbs.QueuePair#postSend(SendWr[], int, int)}, and reuse it once the call returns: the provider
 * copies what it needs during the post, as a NIC reads the WQE.
 */
public final class SendWr extends ScatterGatherList {

    private long wrId;
    private WrOpcode opcode = WrOpcode.SEND;
    private boolean signaled = true;
    private boolean solicited;
    private int immData;
    private long remoteAddress;
    private int rkey;

    /** A request with room for one scatter/gather entry. */
    public SendWr() {
        this(1);
    }

    /** A request with room for {@code maxSge} scatter/gather entries. */
    public SendWr(int maxSge) {
        super(maxSge);
    }

    public long wrId() {
        return wrId;
    }

    public SendWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    public WrOpcode opcode() {
        return opcode;
    }

    public SendWr opcode(WrOpcode opcode) {
        if (opcode == null) {
            throw new NullPointerException("opcode");
        }
        this.opcode = opcode;
        return this;
    }

    /** Whether a successful completion is generated ({@code IBV_SEND_SIGNALED}); errors always are. */
    public boolean signaled() {
        return signaled;
    }

    public SendWr signaled(boolean signaled) {
        this.signaled = signaled;
        return this;
    }

    /**
     * Whether the peer's receive completion raises a solicited-only arm of its completion queue
     * ({@code IBV_SEND_SOLICITED}); meaningful for SEND, SEND_WITH_IMM and WRITE_WITH_IMM. A peer
     * armed for every completion is woken either way.
     */
    public boolean solicited() {
        return solicited;
    }

    public SendWr solicited(boolean solicited) {
        this.solicited = solicited;
        return this;
    }

    /** Immediate data for SEND_WITH_IMM and WRITE_WITH_IMM (host order; the wire order is the provider's job). */
    public int immData() {
        return immData;
    }

    public SendWr immData(int immData) {
        this.immData = immData;
        return this;
    }

    /** Peer address for WRITE, WRITE_WITH_IMM and READ ({@code wr.rdma.remote_addr}). */
    public long remoteAddress() {
        return remoteAddress;
    }

    public SendWr remoteAddress(long remoteAddress) {
        this.remoteAddress = remoteAddress;
        return this;
    }

    /** Peer region key for WRITE, WRITE_WITH_IMM and READ ({@code wr.rdma.rkey}). */
    public int rkey() {
        return rkey;
    }

    public SendWr rkey(int rkey) {
        this.rkey = rkey;
        return this;
    }

    /** Sets the remote side of an RDMA request in one call. */
    public SendWr remote(long remoteAddress, int rkey) {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }

    @Override
    public String toString() {
        return "SendWr{wrId=" + wrId + ", " + opcode + (signaled ? ", signaled" : ", unsignaled") + (solicited ? ", solicited" : "")
                + ", sges=" + numSge() + ", bytes=" + totalLength()
                + (opcode.isRdma() ? ", remote=0x" + Long.toHexString(remoteAddress) + "/rkey=0x" + Integer.toHexString(rkey) : "")
                + "}";
    }
}
