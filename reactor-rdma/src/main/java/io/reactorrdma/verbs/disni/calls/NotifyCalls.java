package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.verbs.SVCReqNotify;

import java.io.IOException;

/**
 * A completion queue's two arm calls, built once: {@code ibv_req_notify_cq(cq, 0)} and
 * {@code ibv_req_notify_cq(cq, 1)} (DiSNI fixes {@code solicited_only} when the call is built), so
 * arming either way is one JNI call and allocates nothing.
 */
public final class NotifyCalls {

    /** Builds DiSNI's arm call: {@code IbvCQ.reqNotification(solicitedOnly)} on hardware. */
    @FunctionalInterface
    public interface Builder {
        SVCReqNotify build(boolean solicitedOnly) throws IOException;
    }

    private final SVCReqNotify any;
    private final SVCReqNotify solicited;

    public NotifyCalls(Builder builder) throws IOException {
        this.any = builder.build(false);
        SVCReqNotify s;
        try {
            s = builder.build(true);
        } catch (IOException | RuntimeException e) {
            any.free();
            throw e;
        }
        this.solicited = s;
    }

    /** Arms for every completion, or ({@code solicitedOnly}) for solicited receives and errors only. */
    public void arm(boolean solicitedOnly) throws IOException {
        (solicitedOnly ? solicited : any).execute();
    }

    public void free() {
        any.free();
        solicited.free();
    }
}
