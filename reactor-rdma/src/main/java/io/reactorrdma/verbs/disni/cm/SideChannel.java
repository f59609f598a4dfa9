package io.reactorrdma.verbs.disni.cm;

import io.reactorrdma.verbs.VerbsException;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The TCP handshake that carries connection private data beside rdma_cm. Stock libdisni 2.1
 * sends connect private data but lets the server not read it, sends none with accept and has no
 * reject (docs/VERBS.md section 2.8), so the provider exchanges the SPI's private data here, on
 * the listener's address and port over TCP, and uses rdma_cm only to connect the queue pairs.
 *
 * <pre>
 * client                                 server (listener)
 *   HELLO(rnr, connect data)    ──►        poll() returns the request
 *                               ◄──        GO(rnr)       (accept: now send the CM request)
 *   rdma_connect …  ESTABLISHED            rdma_accept … ESTABLISHED
 *                               ◄──        ACCEPT(accept data)
 * or                            ◄──        REJECT(reject data), no rdma_cm traffic at all
 * </pre>
 * A frame is {@code magic u32 'RRD2' | type u8 | length u16 | data}, big-endian. Lengths are
 * bounded by the InfiniBand CM sizes, as for rdma_cm private data. HELLO and GO start their data
 * with one byte, {@code rnr}: the sender's {@code QpAttributes.rnrRetry}. rdma_cm sets each queue
 * pair's RNR retry count from the <em>peer's</em> {@code rdma_conn_param.rnr_retry_count} (the IB
 * CM's REQ configures the passive QP, its REP the active one; rdma_connect(3)), so each side passes
 * on the count its own queue pair is to use, and the other side hands it to rdma_cm.
 * (Version 1, magic 'RRDH', had no {@code rnr} byte.)
 */
public final class SideChannel {

    public static final int MAGIC = 0x52524432; // "RRD2"
    /** The first version's magic ("RRDH"), named in the error when an older peer answers. */
    public static final int MAGIC_V1 = 0x52524448;
    /** For frames that carry no {@code rnr} byte. */
    public static final int NO_RNR = -1;
    public static final byte HELLO = 1;
    public static final byte GO = 2;
    public static final byte ACCEPT = 3;
    public static final byte REJECT = 4;

    /** Private-data limits of the InfiniBand CM messages (rdma_cm takes 36 bytes of REQ's 92). */
    public static final int MAX_CONNECT_DATA = 56;
    static final int MAX_ACCEPT_DATA = 196;
    static final int MAX_REJECT_DATA = 148;

    /** A received frame: its type, the sender's rnrRetry (HELLO and GO; else {@link #NO_RNR}) and its private data. */
    public record Frame(byte type, int rnrRetry, ByteBuffer data) {
    }

    /** Whether frames of {@code type} start with the sender's rnrRetry byte. */
    static boolean carriesRnr(byte type) {
        return type == HELLO || type == GO;
    }

    private SideChannel() {
    }

    static int limit(byte type) {
        switch (type) {
            case HELLO: return MAX_CONNECT_DATA;
            case ACCEPT: return MAX_ACCEPT_DATA;
            case REJECT: return MAX_REJECT_DATA;
            default: return 0;
        }
    }

    public static String name(byte type) {
        switch (type) {
            case HELLO: return "HELLO";
            case GO: return "GO";
            case ACCEPT: return "ACCEPT";
            case REJECT: return "REJECT";
            default: return "type " + type;
        }
    }

    /** Checks private data against the CM limit for {@code type}; null counts as empty. */
    public static int checkLength(byte type, ByteBuffer data, String call) {
        int n = data == null ? 0 : data.remaining();
        if (n > limit(type)) {
            throw new IllegalArgumentException(call + " private data is " + n + " bytes; the InfiniBand CM carries at most "
                    + limit(type) + " bytes with " + call);
        }
        return n;
    }

    /** Writes an ACCEPT or REJECT frame. */
    public static void write(DataOutputStream out, byte type, ByteBuffer data) throws IOException {
        write(out, type, NO_RNR, data);
    }

    /** Writes a frame; HELLO and GO need the sender's queue pair's {@code rnrRetry} (0..7). */
    public static void write(DataOutputStream out, byte type, int rnrRetry, ByteBuffer data) throws IOException {
        if (carriesRnr(type) != (rnrRetry != NO_RNR) || rnrRetry < NO_RNR || rnrRetry > 7) {
            throw new IllegalArgumentException(name(type) + " frame with rnrRetry " + rnrRetry);
        }
        int n = data == null ? 0 : data.remaining();
        out.writeInt(MAGIC);
        out.writeByte(type);
        out.writeShort(n + (carriesRnr(type) ? 1 : 0));
        if (carriesRnr(type)) {
            out.writeByte(rnrRetry);
        }
        if (n > 0) {
            ByteBuffer d = data.duplicate();
            byte[] bytes = new byte[n];
            d.get(bytes);
            out.write(bytes);
        }
        out.flush();
    }

    /** Reads one frame and checks it is well formed; {@code peer} names the other side in errors. */
    public static Frame read(DataInputStream in, String peer) throws IOException {
        int magic;
        try {
            magic = in.readInt();
        } catch (EOFException e) {
            throw new EOFException("the side channel to " + peer + " closed before the handshake finished");
        }
        if (magic == MAGIC_V1) {
            throw new VerbsException(peer + " runs an older reactor-rdma whose disni handshake (version 1) does not pass on "
                    + "RNR retry counts; run the same reactor-rdma version on both ends");
        }
        if (magic != MAGIC) {
            throw new VerbsException(peer + " does not speak the reactor-rdma disni handshake (magic 0x"
                    + Integer.toHexString(magic) + "); is another service on that TCP port?");
        }
        byte type = in.readByte();
        int n = in.readUnsignedShort();
        int rnrBytes = carriesRnr(type) ? 1 : 0;
        if (type < HELLO || type > REJECT || n > limit(type) + rnrBytes || n < rnrBytes) {
            throw new VerbsException("malformed handshake frame from " + peer + ": " + name(type) + " with " + n + " bytes");
        }
        int rnr = NO_RNR;
        if (rnrBytes == 1) {
            rnr = in.readUnsignedByte();
            if (rnr > 7) {
                throw new VerbsException("malformed handshake frame from " + peer + ": " + name(type) + " with RNR retry count "
                        + rnr + " (0..7)");
            }
        }
        byte[] bytes = new byte[n - rnrBytes];
        in.readFully(bytes);
        return new Frame(type, rnr, ByteBuffer.wrap(bytes).asReadOnlyBuffer());
    }
}
