package io.reactorrdma.verbs.ffm.rdmacore;

/**
 * What a queue pair holds ({@code struct ibv_qp_cap}): outstanding work requests and scatter/gather entries per
 * queue, and the most bytes a send may carry inline (copied into the work request at post time, no lkey needed).
 */
public record QpCapacities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {

    public QpCapacities {
        if (maxSendWr < 1 || maxRecvWr < 0 || maxSendSge < 1 || maxRecvSge < 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("queue pair capacities must be positive (send) and not negative, got "
                    + maxSendWr + " send WRs, " + maxRecvWr + " receive WRs, " + maxSendSge + " send SGEs, " + maxRecvSge
                    + " receive SGEs, " + maxInlineData + " inline bytes");
        }
    }
}
