package io.reactorrdma.rsocket.shard;

import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.exceptions.RejectedException;
import io.rsocket.exceptions.InvalidException;
import io.rsocket.lease.MissingLeaseException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The policies of the shard client on a fake clock: retry budget, hedge cap, latency quantile, retry decision, call options. */
class RecoveryPoliciesTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void retryBudgetAllowsTheMinimumThenTenPercentOfCalls() {
        RetryBudget budget = new RetryBudget(0.1, 1, Duration.ofSeconds(10), now::get);
        // no calls yet: only the allowance, 1 per second of the 10-s window
        int allowed = 0;
        while (budget.tryRetry()) {
            allowed++;
        }
        assertThat(allowed).isEqualTo(10);
        // 1000 calls deposit 100 more retries, not one more
        for (int i = 0; i < 1000; i++) {
            budget.onCall();
        }
        allowed = 0;
        while (budget.tryRetry()) {
            allowed++;
        }
        assertThat(allowed).isEqualTo(100);
    }

    @Test
    void retryBudgetRefillsAsTheWindowSlides() {
        RetryBudget budget = new RetryBudget(0.1, 0, Duration.ofSeconds(10), now::get);
        for (int i = 0; i < 100; i++) {
            budget.onCall();
        }
        int allowed = 0;
        while (budget.tryRetry()) {
            allowed++;
        }
        assertThat(allowed).isEqualTo(10);
        advance(Duration.ofSeconds(5));
        assertThat(budget.tryRetry()).as("half a window later the old retries still count").isFalse();
        advance(Duration.ofSeconds(6));
        assertThat(budget.tryRetry()).as("the calls aged out with the retries: nothing deposited").isFalse();
        for (int i = 0; i < 20; i++) {
            budget.onCall();
        }
        assertThat(budget.tryRetry()).isTrue();
        assertThat(budget.tryRetry()).isTrue();
        assertThat(budget.tryRetry()).isFalse();
    }

    @Test
    void retryBudgetRejectsBadSettingsClearly() {
        assertThatThrownBy(() -> new RetryBudget(-0.1, 1, Duration.ofSeconds(10), now::get)).hasMessageContaining("ratio");
        assertThatThrownBy(() -> new RetryBudget(0.1, 1, Duration.ofMillis(10), now::get)).hasMessageContaining("at least 1 s");
    }

    @Test
    void hedgesStayWithinTheirFractionOfCalls() {
        HedgeLimiter limiter = new HedgeLimiter(0.05, Duration.ofSeconds(10), now::get);
        int hedged = 0;
        for (int i = 0; i < 1000; i++) {
            limiter.onCall();
            if (limiter.tryHedge()) {
                hedged++; // every call would like a hedge
            }
        }
        assertThat(hedged).isEqualTo(50);
        advance(Duration.ofSeconds(11));
        limiter.onCall();
        assertThat(limiter.tryHedge()).as("one call of a fresh window is not enough for 5 %").isFalse();
        assertThatThrownBy(() -> new HedgeLimiter(1.5, Duration.ofSeconds(10), now::get)).hasMessageContaining("[0, 1]");
    }

    @Test
    void latencyQuantileFollowsTheRecentCallsAfterTheInitialDelay() {
        LatencyTracker t = new LatencyTracker(0.95, Duration.ofMillis(1), Duration.ofMillis(50), 100, Duration.ofSeconds(2), 8, now::get);
        assertThat(t.delayNanos()).as("no samples: the initial delay").isEqualTo(Duration.ofMillis(50).toNanos());
        for (int i = 1; i <= 1000; i++) {
            t.record(Duration.ofMillis(i % 100 == 0 ? 200 : 10).toNanos() + i);
        }
        advance(Duration.ofMillis(300));
        // 99 % of the latencies are ~10 ms, so the p95 is ~10 ms (2 significant digits)
        assertThat(t.delayNanos()).isBetween(Duration.ofMillis(9).toNanos(), Duration.ofMillis(11).toNanos());
        for (int i = 0; i < 1000; i++) {
            t.record(Duration.ofMillis(30).toNanos());
        }
        advance(Duration.ofMillis(300));
        assertThat(t.delayNanos()).as("half the window is now 30 ms")
                .isBetween(Duration.ofMillis(29).toNanos(), Duration.ofMillis(31).toNanos());
        advance(Duration.ofSeconds(3)); // everything ages out
        assertThat(t.delayNanos()).isEqualTo(Duration.ofMillis(50).toNanos());
        for (int i = 0; i < 200; i++) {
            t.record(1000); // 1 µs: below the floor
        }
        advance(Duration.ofMillis(300));
        assertThat(t.delayNanos()).as("never below the floor").isEqualTo(Duration.ofMillis(1).toNanos());
    }

    @Test
    void onlyConnectionLossTimeoutsAndRejectionsAreRetried() {
        assertThat(RetryableErrors.isRetryable(new ClosedChannelException())).isTrue();
        assertThat(RetryableErrors.isRetryable(new ConnectionErrorException("keepalive"))).isTrue();
        assertThat(RetryableErrors.isRetryable(new TimeoutException())).isTrue();
        assertThat(RetryableErrors.isRetryable(new RejectedException("busy"))).isTrue();
        assertThat(RetryableErrors.isRetryable(new MissingLeaseException("no lease"))).isTrue();
        assertThat(RetryableErrors.isRetryable(new ApplicationErrorException("bad key"))).isFalse();
        assertThat(RetryableErrors.isRetryable(new InvalidException("bad frame"))).isFalse();
        assertThat(RetryableErrors.isRetryable(new IllegalArgumentException())).isFalse();
    }

    @Test
    void callOptionsTravelInTheContextAndInheritWhatTheyDoNotSet() {
        CallOptions seen = Mono.deferContextual(ctx -> Mono.just(CallOptions.from(ctx)))
                .contextWrite(CallOptions.idempotent().timeout(Duration.ofMillis(200))).block();
        assertThat(seen.isIdempotent()).isTrue();
        assertThat(seen.getTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(seen.isHedging()).isNull();
        assertThat(CallOptions.from(Context.empty())).isSameAs(CallOptions.inherit());
        assertThat(CallOptions.notIdempotent().isIdempotent()).isFalse();
        assertThatThrownBy(() -> CallOptions.idempotent().timeout(Duration.ZERO)).hasMessageContaining("positive");
    }
}
