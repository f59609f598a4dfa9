package io.reactorrdma.rsocket.fallback;

import io.rsocket.DuplexConnection;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;

/**
 * Whether one RSocket stream is still alive, read from its frames in both directions, and the
 * connection it started on. A stream has two halves, one per direction: the half of whoever sent
 * the request carries the request (one message, possibly in fragments; a channel's whole outbound
 * stream), the other half the answer (one message for request-response, a stream for
 * request-stream and channel, nothing for fire-and-forget). A half ends with its last fragment
 * (one message) or with a COMPLETE flag not followed by more fragments (a stream). ERROR or CANCEL
 * in either direction ends the whole stream: RSocket-Java 1.1 terminates both halves on either.
 * The stream has ended when both halves have. Not thread-safe: the owner locks.
 */
final class StreamLifecycle {

    private final DuplexConnection connection;
    private final boolean requestOnly; // the answer half carries one message (request-response)
    private final boolean channel;
    private final boolean openedByUs;
    private boolean outboundOpen;
    private boolean inboundOpen;

    private StreamLifecycle(DuplexConnection connection, FrameType request, boolean openedByUs) {
        this.connection = connection;
        this.requestOnly = request == FrameType.REQUEST_RESPONSE;
        this.channel = request == FrameType.REQUEST_CHANNEL;
        this.openedByUs = openedByUs;
        boolean answerOpen = request != FrameType.REQUEST_FNF;
        this.outboundOpen = openedByUs || answerOpen;
        this.inboundOpen = !openedByUs || answerOpen;
    }

    /** True for the frame types that open a stream. */
    static boolean opensStream(FrameType type) {
        return type == FrameType.REQUEST_RESPONSE || type == FrameType.REQUEST_FNF
                || type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL;
    }

    /**
     * The stream that {@code request} (a frame whose type {@link #opensStream} opens) starts on
     * {@code connection}, already advanced past that frame; sent by us when {@code sentByUs}.
     */
    static StreamLifecycle open(DuplexConnection connection, FrameType request, int flags, boolean sentByUs) {
        StreamLifecycle s = new StreamLifecycle(connection, request, sentByUs);
        s.on(request, flags, sentByUs);
        return s;
    }

    DuplexConnection connection() {
        return connection;
    }

    /** A frame of this stream we sent. */
    void sent(FrameType type, int flags) {
        on(type, flags, true);
    }

    /** A frame of this stream we received. */
    void received(FrameType type, int flags) {
        on(type, flags, false);
    }

    boolean ended() {
        return !outboundOpen && !inboundOpen;
    }

    /** True while the peer may still send us data frames of this stream. */
    boolean inboundOpen() {
        return inboundOpen;
    }

    /** True while we may still send data frames of this stream. */
    boolean outboundOpen() {
        return outboundOpen;
    }

    private void on(FrameType type, int flags, boolean outbound) {
        if (type == FrameType.ERROR || type == FrameType.CANCEL) {
            outboundOpen = false;
            inboundOpen = false;
            return;
        }
        if (type != FrameType.PAYLOAD && !opensStream(type)) {
            return; // REQUEST_N, EXT...: no data
        }
        boolean follows = (flags & FrameHeaderCodec.FLAGS_F) != 0;
        boolean complete = (flags & FrameHeaderCodec.FLAGS_C) != 0;
        // the half of the requester carries one message unless it is a channel; the answer half one message for request-response
        boolean requesterHalf = outbound == openedByUs;
        boolean oneMessage = requesterHalf ? !channel : requestOnly;
        boolean ends = !follows && (oneMessage || complete);
        if (ends) {
            if (outbound) {
                outboundOpen = false;
            } else {
                inboundOpen = false;
            }
        }
    }

    @Override
    public String toString() {
        return "Stream{on=" + connection + ", out=" + outboundOpen + ", in=" + inboundOpen + "}";
    }
}
