package io.reactorrdma.incast.sweep;

import io.reactorrdma.incast.topology.Tier;

/**
 * What one arm measured. Latencies in microseconds from an HdrHistogram of picoseconds; PFC figures per {@link Tier}
 * (the tier of the port that was paused: host NIC, ToR downlink — never, hosts send no PFC —, ToR uplink, spine),
 * paused time summed over that tier's ports; queues in wire bytes.
 *
 * @param arm                   the arm
 * @param pushes                pushes completed (post to the ACK of the last packet)
 * @param p50Us                 push latency p50, µs
 * @param p99Us                 push latency p99, µs
 * @param p999Us                push latency p99.9, µs
 * @param xoffs                 XOFF frames received per tier, indexed by {@link Tier#ordinal()}
 * @param pausedPs              paused time per tier, summed over the tier's ports, ps
 * @param nicsPausedShare       the share of host NICs ever paused, 0..1
 * @param maxQueueBytes         the largest egress queue of any switch port (held for a positive time), exact
 * @param p99QueueBytes         the time-weighted p99 of the egress queues towards the parameter servers: sampled every
 *                              {@link ArmMeasurement#DEFAULT_SAMPLE_PS} ps of simulated time up to the last
 *                              completion within the duration, pooled over those ports
 * @param ecnMarks              data packets ECN-marked by switches
 * @param cnps                  CNPs sent by receivers
 * @param deliveredBytes        payload bytes delivered to the parameter servers
 * @param simulatedPs           simulated time of the run, ps (to its last event: the pushes posted before the
 *                              duration's end are drained)
 * @param psLinkBitsPerSecond   the parameter servers' links' capacity together, b/s
 * @param events                events processed
 * @param wallNanos             wall-clock time of the run, ns (the only figure that differs between equal runs)
 */
public record ArmResult(Arm arm, long pushes, double p50Us, double p99Us, double p999Us, long[] xoffs, long[] pausedPs,
                        double nicsPausedShare, long maxQueueBytes, long p99QueueBytes, long ecnMarks, long cnps,
                        long deliveredBytes, long simulatedPs, long psLinkBitsPerSecond, long events, long wallNanos) {

    /** Copies the arrays, so the record is immutable. */
    public ArmResult {
        if (xoffs.length != Tier.values().length || pausedPs.length != Tier.values().length) {
            throw new IllegalArgumentException("xoffs and pausedPs need one entry per tier (" + Tier.values().length + ")");
        }
        xoffs = xoffs.clone();
        pausedPs = pausedPs.clone();
    }

    /** Delivered payload / simulated time, b/s. */
    public double goodputBitsPerSecond() {
        return simulatedPs <= 0 ? 0 : deliveredBytes * 8e12 / simulatedPs;
    }

    /** Goodput as a share of the parameter servers' link capacity (line rate; payload alone reaches MTU/(MTU + headers)). */
    public double goodputShare() {
        return psLinkBitsPerSecond <= 0 ? 0 : goodputBitsPerSecond() / psLinkBitsPerSecond;
    }

    /** XOFF frames received by the ports of {@code tier}. */
    public long xoffs(Tier tier) {
        return xoffs[tier.ordinal()];
    }

    /** Paused time of the ports of {@code tier}, summed, µs. */
    public double pausedUs(Tier tier) {
        return pausedPs[tier.ordinal()] / 1e6;
    }

    /** XOFF frames received in all. */
    public long xoffTotal() {
        long sum = 0;
        for (long x : xoffs) {
            sum += x;
        }
        return sum;
    }

    /** Paused time of every port, summed, µs. */
    public double pausedTotalUs() {
        long sum = 0;
        for (long p : pausedPs) {
            sum += p;
        }
        return sum / 1e6;
    }

    /** Events per wall-clock second. */
    public double eventsPerSecond() {
        return wallNanos <= 0 ? 0 : events * 1e9 / wallNanos;
    }

    /** A tier's name in CSV columns ({@code xoff_nic}) and the table: nic, tor_down, tor_up, spine. */
    public static String tierId(Tier tier) {
        return switch (tier) {
            case HOST_NIC -> "nic";
            case TOR_DOWNLINK -> "tor_down";
            case TOR_UPLINK -> "tor_up";
            case SPINE -> "spine";
        };
    }
}
