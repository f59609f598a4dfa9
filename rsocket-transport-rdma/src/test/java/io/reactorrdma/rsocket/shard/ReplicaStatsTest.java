package io.reactorrdma.rsocket.shard;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.SignalType;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The latency the weighted strategy reads for a replica. */
class ReplicaStatsTest {

    private static final long DECAY = TimeUnit.SECONDS.toNanos(1);

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final ReplicaStats stats = new ReplicaStats(DECAY, clock::get);

    private void copy(long millis, SignalType how) {
        long start = stats.begin();
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        stats.end(start, how);
    }

    /**
     * A slow replica whose copies are cancelled because their hedges won (or their attempts timed
     * out): each cancelled copy only says the replica is slower than its elapsed time. Counting it
     * as a sample of that time made the slow replica look fast and drew more calls to it (the
     * fanout benchmark's slow replica got 5–18 % of its shard's requests with hedging on against
     * 1–4 % with hedging off).
     */
    @Test
    void copiesCancelledBeforeTheirAnswerNeverMakeAReplicaLookFaster() {
        copy(50, SignalType.ON_COMPLETE); // one answer: 50 ms
        double answered = stats.predictedLatency();
        assertThat(answered).isEqualTo(50_000.0);

        for (int i = 0; i < 20; i++) {
            copy(10, SignalType.CANCEL); // hedged away after 10 ms each, 200 ms in all
        }
        double expectedDecayOnly = answered * Math.exp(-(double) TimeUnit.MILLISECONDS.toNanos(200) / DECAY);
        assertThat(stats.predictedLatency()).as("20 copies cancelled at 10 ms are lower bounds, not samples")
                .isCloseTo(expectedDecayOnly, org.assertj.core.data.Offset.offset(1.0));
        assertThat(stats.pending()).isZero();
    }

    @Test
    void aCancelledCopyLongerThanTheAverageRaisesIt() {
        copy(5, SignalType.ON_COMPLETE);
        copy(80, SignalType.CANCEL);
        assertThat(stats.predictedLatency()).isEqualTo(80_000.0);
    }

    @Test
    void fasterAnswersBlendInAndSlowerOnesTakeOverAtOnce() {
        copy(50, SignalType.ON_COMPLETE);
        copy(10, SignalType.ON_COMPLETE);
        double blended = stats.predictedLatency();
        assertThat(blended).isLessThan(50_000.0).isGreaterThan(10_000.0);
        copy(90, SignalType.ON_ERROR);
        assertThat(stats.predictedLatency()).isEqualTo(90_000.0);
    }

    /** Finagle's peak EWMA: a faster sample blends in as {@code average × w + sample × (1 − w)}, w = e^(−elapsed/τ), decayed once. */
    @Test
    void aFasterSampleBlendsInWithTheDecayAppliedOnce() {
        copy(50, SignalType.ON_COMPLETE);
        copy(10, SignalType.ON_COMPLETE); // 10 ms after the first sample
        double w = Math.exp(-(double) TimeUnit.MILLISECONDS.toNanos(10) / DECAY);
        assertThat(stats.predictedLatency()).isCloseTo(50_000.0 * w + 10_000.0 * (1 - w), org.assertj.core.data.Offset.offset(1.0));
    }

    @Test
    void theAverageFadesWhileAReplicaGetsNoSamples() {
        copy(50, SignalType.ON_COMPLETE);
        clock.addAndGet(DECAY);
        assertThat(stats.predictedLatency()).isCloseTo(50_000.0 / Math.E, org.assertj.core.data.Offset.offset(1.0));
    }
}
