package io.reactorrdma.verbs.soft.shared;

import java.nio.ByteBuffer;

/**
 * The byte layout of a soft queue pair's shared structure: one block of memory per queue pair
 * (a direct buffer on loopback, the file {@code <context>.qp<qpn>} on shm). The peer maps the
 * header and the receive queue (it consumes our receives and writes their completions in place);
 * the send queue after them is only ever touched by the owner.
 *
 * <pre>
 * Header, 192 bytes (fields written by different sides sit on different cache lines):
 *   0  int  MAGIC = 'RRQP'           owner, at creation
 *   4  int  VERSION                   owner, at creation
 *   8  int  qpn                       owner, at creation
 *  12  int  rqDepth                   owner, at creation
 *  16  int  maxRecvSge                owner, at creation
 *  20  int  sqDepth                   owner, at creation
 *  24  int  maxSendSge                owner, at creation
 *  28  int  wakeCq                    owner, at creation: the number of the receive completion queue,
 *                                     whose WakeSocket ({@code <context>.cq<n>.wake}) the peer connects
 *                                     to; 0 when it has none (the peer then wakes us via the link)
 *  64  int  state (QpState.ibv)       owner (a volatile store when it enters ERROR); the peer reads it
 *                                     before every request
 *  68  int  inbound                   peer: +1 (atomic, a full fence) before it runs requests against us,
 *                                     -1 when done; the owner flushes receives in ERROR only while it
 *                                     reads 0, so a flush means no peer copy into our memory is under way
 * 128  int  notifyArmed               owner: ARM_ANY (1, ibv_req_notify_cq(cq, 0)) or ARM_SOLICITED (2,
 *                                     solicited_only = 1), 0 when the wait ended. The peer, once at the
 *                                     end of a run of its send queue (the doorbell) in which it published
 *                                     a completion here, CASes it to 0 and wakes us when the value is raised
 *                                     by what it published: ARM_ANY by any completion, ARM_SOLICITED only by
 *                                     a solicited one or an error
 * 132  int  remoteError               the peer writes a WcStatus code when it saw a responder-side
 *                                     error of ours (REM_ACCESS_ERR on a WRITE); we then enter ERROR
 *
 * Receive queue: rqDepth slots of rqSlotSize(maxRecvSge) bytes; slot of receive n is n % rqDepth.
 * A slot is two parts on separate cache lines, so that the two processes hand each line over once
 * per message instead of passing one line back and forth (on two cores of this kind of host a
 * hand-over costs some 200 ns, more than everything else a small message does):
 * the done part (two lines), which the peer writes and the owner polls, and the posted part,
 * which the owner writes when it posts and the peer only reads (it fetches the next one at the end
 * of each run of its send queue, while it would only wait, so a message's claim finds it there).
 * The owner flushes a receive only while it reads {@code inbound} 0 and after a second look at
 * {@code doneSeq}, so no claim needs to be written for it. A SEND of up to
 * {@link #RQ_INLINE_MAX} bytes travels in the done part itself (FLAG_INLINE): the owner finds the
 * bytes in the lines it polls and copies them into the buffer it posted when it takes the
 * completion, so a small message costs neither side a fetch of the receive buffer's lines
 * (mlx5's "scatter to CQE" does the same for small receives).
 *   done part (written by the peer; the owner polls doneSeq):
 *   0  long doneSeq     peer: n+1 (release) after the data and the fields below are written
 *   8  int  status      peer: WcStatus.ibv
 *  12  int  opcode      peer: WcOpcode.ibv (RECV or RECV_RDMA_WITH_IMM)
 *  16  int  byteLen     peer
 *  20  int  immData     peer
 *  24  int  flags       peer: FLAG_IMM when immData is valid, FLAG_INLINE when the bytes follow
 *  32  byte[96] inline  peer: the message when FLAG_INLINE (byteLen of them)
 *   posted part (written by the owner; the peer reads it when it claims the receive):
 * 128  long postSeq     owner: n+1 (release) once the slot is filled, 0 when it flushed the receive
 * 136  int  numSge      owner
 * 144  sge[i] = { long addr, int length, int lkey }, 16 bytes each, owner
 *
 * Send queue: sqDepth slots of sqSlotSize(maxSendSge) bytes, owner only.
 *   0  long wrId
 *   8  long remoteAddr
 *  16  int  opcode (WrOpcode.ibv)
 *  20  int  flags (SQ_SIGNALED, SQ_SOLICITED)
 *  24  int  immData
 *  28  int  rkey
 *  32  int  numSge
 *  36  int  heldStatus   a completion held back (SoftFaults.withReadCompletionFault): its WcStatus.ibv
 *  40  int  heldByteLen  ... and its byteLen, pushed when the hold is released
 *  48  sge[i] as above
 * </pre>
 *
 * Everything the peer wrote is untrusted: the owner checks sequence numbers against its own
 * counters and statuses, opcodes and lengths against what it posted (kept in private shadow
 * arrays), and the peer checks every receive descriptor against the owner's region table.
 */
public final class QpLayout {

    public static final int MAGIC = 0x52525150; // 'RRQP'
    /**
     * 2: the solicited arm (ARM_SOLICITED) and WQE flag (SQ_SOLICITED). 3: receive slots in a done
     * and a posted part that the peer only reads, small SENDs inline in the done part.
     */
    public static final int VERSION = 3;

    public static final int H_MAGIC = 0;
    public static final int H_VERSION = 4;
    public static final int H_QPN = 8;
    public static final int H_RQ_DEPTH = 12;
    public static final int H_MAX_RECV_SGE = 16;
    static final int H_SQ_DEPTH = 20;
    static final int H_MAX_SEND_SGE = 24;
    public static final int H_WAKE_CQ = 28;
    public static final int H_STATE = 64;
    /** Requests the peer is running against this queue pair (it counts up before it checks H_STATE, down when done). */
    public static final int H_INBOUND = 68;
    public static final int H_NOTIFY_ARMED = 128;
    /** {@link #H_NOTIFY_ARMED} (and a completion queue's local arm): raised by any completion. */
    public static final int ARM_ANY = 1;
    /** {@link #H_NOTIFY_ARMED}: raised only by a solicited receive completion or an error. */
    public static final int ARM_SOLICITED = 2;
    public static final int H_REMOTE_ERROR = 132;
    public static final int HEADER_SIZE = 192;

    public static final int RQ_DONE_SEQ = 0;
    public static final int RQ_STATUS = 8;
    public static final int RQ_OPCODE = 12;
    public static final int RQ_BYTE_LEN = 16;
    public static final int RQ_IMM = 20;
    public static final int RQ_FLAGS = 24;
    public static final int RQ_INLINE = 32;
    /** The largest SEND carried in the done part: what fits its two cache lines after the completion's fields. */
    public static final int RQ_INLINE_MAX = 2 * SharedMemory.CACHE_LINE - RQ_INLINE;
    /** The done part's second cache line: the inline bytes past its first 32. */
    public static final int RQ_DONE_SECOND_LINE = SharedMemory.CACHE_LINE;
    public static final int RQ_POST_SEQ = 2 * SharedMemory.CACHE_LINE;
    public static final int RQ_NUM_SGE = RQ_POST_SEQ + 8;
    public static final int RQ_SGES = RQ_POST_SEQ + 16;
    public static final int FLAG_IMM = 1;
    /** The message's bytes are in the done part (at RQ_INLINE), not yet in the posted buffer. */
    public static final int FLAG_INLINE = 2;

    public static final int SQ_WR_ID = 0;
    public static final int SQ_REMOTE_ADDR = 8;
    public static final int SQ_OPCODE = 16;
    public static final int SQ_FLAGS = 20;
    public static final int SQ_IMM = 24;
    public static final int SQ_RKEY = 28;
    public static final int SQ_NUM_SGE = 32;
    public static final int SQ_HELD_STATUS = 36;
    public static final int SQ_HELD_BYTE_LEN = 40;
    public static final int SQ_SGES = 48;
    public static final int SQ_SIGNALED = 1;
    /** IBV_SEND_SOLICITED: the peer's receive completion raises a solicited-only arm. */
    public static final int SQ_SOLICITED = 2;

    /** What a published completion raises (a doorbell's level): nothing, a full arm only, or any arm. */
    public static final int RAISES_NOTHING = 0;
    public static final int RAISES_FULL_ARM = 1;
    public static final int RAISES_ANY_ARM = 2;

    public static final int SGE_SIZE = 16;
    public static final int SGE_ADDR = 0;
    public static final int SGE_LENGTH = 8;
    public static final int SGE_LKEY = 12;

    private QpLayout() {
    }

    /**
     * Whether a completion of {@code level} (RAISES_*) raises an arm of value {@code arm} (0, ARM_ANY, ARM_SOLICITED;
     * anything else: no).
     */
    public static boolean raises(int arm, int level) {
        return (arm == ARM_ANY && level != RAISES_NOTHING) || (arm == ARM_SOLICITED && level == RAISES_ANY_ARM);
    }

    public static int rqSlotSize(int maxRecvSge) {
        return SharedMemory.alignToCacheLine(RQ_SGES + SGE_SIZE * maxRecvSge);
    }

    public static int sqSlotSize(int maxSendSge) {
        return SharedMemory.alignToCacheLine(SQ_SGES + SGE_SIZE * maxSendSge);
    }

    /** Bytes the peer maps: header plus receive queue. */
    public static int sharedSize(int rqDepth, int maxRecvSge) {
        return HEADER_SIZE + rqDepth * rqSlotSize(maxRecvSge);
    }

    public static int totalSize(int rqDepth, int maxRecvSge, int sqDepth, int maxSendSge) {
        return sharedSize(rqDepth, maxRecvSge) + sqDepth * sqSlotSize(maxSendSge);
    }

    public static int rqSlotOffset(int slot, int maxRecvSge) {
        return HEADER_SIZE + slot * rqSlotSize(maxRecvSge);
    }

    public static void writeHeader(ByteBuffer b, int qpn, int rqDepth, int maxRecvSge, int sqDepth, int maxSendSge, int wakeCq) {
        b.putInt(H_QPN, qpn);
        b.putInt(H_WAKE_CQ, wakeCq);
        b.putInt(H_RQ_DEPTH, rqDepth);
        b.putInt(H_MAX_RECV_SGE, maxRecvSge);
        b.putInt(H_SQ_DEPTH, sqDepth);
        b.putInt(H_MAX_SEND_SGE, maxSendSge);
        b.putInt(H_VERSION, VERSION);
        SharedMemory.putIntRelease(b, H_MAGIC, MAGIC);
    }
}
