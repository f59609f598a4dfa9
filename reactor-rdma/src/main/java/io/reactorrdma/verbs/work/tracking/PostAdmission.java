package io.reactorrdma.verbs.work.tracking;

import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;

/**
 * The checks a hardware provider makes before it posts a batch, the same for every provider: the batch lies in its
 * array, the queue pair still exists, the batch fits the free slots and each request its queue's scatter/gather
 * limit. Each refuses the whole batch before anything is posted, as the SPI requires. No allocation.
 */
public final class PostAdmission {

    private PostAdmission() {
    }

    /** Throws unless {@code [from, from + count)} lies inside an array of {@code length}. */
    public static void checkRange(int length, int from, int count) {
        if (from < 0 || count < 0 || from + count > length) {
            throw new IndexOutOfBoundsException("batch [" + from + ", " + (from + count) + ") outside an array of " + length);
        }
    }

    /** Throws when the queue pair is destroyed, or its close began ({@code closing}). */
    public static void checkNotDestroyed(QpRecord record, boolean closing) {
        if (record.state() == QpState.DESTROYED || closing) {
            throw new VerbsException("queue pair " + record.qpNum() + " is destroyed; create a new one");
        }
    }

    /** Throws unless the send batch fits the free send slots and each request the send queue's SGE limit. */
    public static void admitSends(QpRecord record, QpAttributes attributes, SendWr[] wrs, int from, int count) {
        int free = record.work.freeSendSlots();
        if (count > free) {
            throw new VerbsException("send queue of queue pair " + record.qpNum() + " is full: " + free + " of "
                    + attributes.maxSendWr() + " slots free, " + count + " requests given; nothing was posted. Poll completions"
                    + " to free slots");
        }
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            if (wr.numSge() > attributes.maxSendSge()) {
                throw new VerbsException("send request " + wr + " has " + wr.numSge() + " scatter/gather entries; queue pair "
                        + record.qpNum() + " allows " + attributes.maxSendSge() + "; nothing was posted");
            }
        }
    }

    /**
     * Throws unless the receive batch fits the free receive slots and each request the receive queue's SGE limit; fills
     * {@code wrIds} with the requests' ids on the way (what {@link PostedWork#recordRecvs} takes).
     */
    public static void admitRecvs(QpRecord record, QpAttributes attributes, RecvWr[] wrs, int from, int count, long[] wrIds) {
        int free = record.work.freeRecvSlots();
        if (count > free) {
            throw new VerbsException("receive queue of queue pair " + record.qpNum() + " is full: " + free + " of "
                    + attributes.maxRecvWr() + " slots free, " + count + " requests given; nothing was posted");
        }
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            if (wr.numSge() > attributes.maxRecvSge()) {
                throw new VerbsException("receive request " + wr + " has " + wr.numSge() + " scatter/gather entries; queue pair "
                        + record.qpNum() + " allows " + attributes.maxRecvSge() + "; nothing was posted");
            }
            wrIds[i] = wr.wrId();
        }
    }
}
