package io.reactorrdma.perf.fanout;

import java.util.Locale;

/**
 * What a {@link ShardFanOut} counted: sub-requests it was asked to send, and the extra requests the
 * shard clients added (hedges, of which some won, and retries). Cumulative; {@link #minus} gives
 * a phase's share. {@link #NONE} for a fan-out that neither hedges nor retries.
 *
 * @param subRequests sub-requests the fan-outs built (one per shard per fan-out)
 * @param hedges      second copies sent to another replica ({@code rdma.recovery.hedges})
 * @param hedgesWon   hedges whose answer came first ({@code rdma.recovery.hedges.won})
 * @param retries     attempts sent again after a failure ({@code rdma.recovery.retries})
 */
record RecoveryCounts(long subRequests, long hedges, long hedgesWon, long retries) {

    /** Nothing counted: a fan-out without a recovery layer. */
    static final RecoveryCounts NONE = new RecoveryCounts(0, 0, 0, 0);

    /** What was counted since {@code earlier}. */
    RecoveryCounts minus(RecoveryCounts earlier) {
        return new RecoveryCounts(subRequests - earlier.subRequests, hedges - earlier.hedges, hedgesWon - earlier.hedgesWon,
                retries - earlier.retries);
    }

    /** Hedges and retries over sub-requests: the extra load the recovery layer put on the replicas; NaN without sub-requests. */
    double extraRequestFraction() {
        return subRequests == 0 ? Double.NaN : (hedges + retries) / (double) subRequests;
    }

    /** E.g. {@code hedges 12 sent, 9 won; retries 0; extra requests 0.41 % of 2,912}. */
    String describe() {
        return String.format(Locale.ROOT, "hedges %d sent, %d won; retries %d; extra requests %.2f %% of %,d sub-requests",
                hedges, hedgesWon, retries, extraRequestFraction() * 100, subRequests);
    }
}
