package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rdma.idle.waits}: an idle I/O thread that blocks is counted; a spinning one never blocks. And
 * BACK_OFF's full spins: handed-over work that always comes after the spin ran out stops it spinning.
 */
class ThreadDomainIdleWaitsTest {

    @Test
    @Timeout(60)
    void anIdleBlockingThreadCountsItsWaitsAndASpinningOneNone() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "idle-waits-test");
            t.setDaemon(true);
            return t;
        });
        VerbsContext ctx = SoftContext.openLoopback(SoftConfig.defaults());
        RegisteredAllocator memory = new RegisteredAllocator(ctx.allocPd());
        ThreadDomain blocking = new ThreadDomain("blocking-io", ctx, memory, EngineConfig.defaults(), IdleStrategy.BACK_OFF, 1, threads);
        ThreadDomain spinning = new ThreadDomain("spinning-io", ctx, memory, EngineConfig.defaults(), IdleStrategy.BUSY_SPIN, 1, threads);
        try {
            // With nothing to do, BACK_OFF spins its turns and then blocks; each wake-up (the heartbeat
            // timeout, a handed-over task) that finds nothing to do blocks again.
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (blocking.metrics().idleWaits() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(blocking.metrics().idleWaits()).as("waits of an idle BACK_OFF thread").isPositive();
            long before = blocking.metrics().idleWaits();
            blocking.execute(() -> { });
            deadline = System.nanoTime() + 30_000_000_000L;
            while (blocking.metrics().idleWaits() == before && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(blocking.metrics().idleWaits()).as("a handed-over task woke it, and it blocked again").isGreaterThan(before);
            Thread.sleep(200);
            assertThat(spinning.metrics().idleWaits()).as("waits of a BUSY_SPIN thread").isZero();
        } finally {
            blocking.close();
            spinning.close();
            memory.close();
            ctx.close();
            threads.shutdownNow();
        }
    }

    @Test
    @Timeout(60)
    void backOffStopsSpinningInFullWhenItsSpinsKeepRunningOut() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "idle-spins-test");
            t.setDaemon(true);
            return t;
        });
        VerbsContext ctx = SoftContext.openLoopback(SoftConfig.defaults());
        RegisteredAllocator memory = new RegisteredAllocator(ctx.allocPd());
        ThreadDomain backOff = new ThreadDomain("back-off-io", ctx, memory, EngineConfig.defaults(), IdleStrategy.BACK_OFF, 1, threads);
        ThreadDomain blocking = new ThreadDomain("block-io", ctx, memory, EngineConfig.defaults(), IdleStrategy.BLOCK, 1, threads);
        try {
            // Each task is handed over only once the thread has blocked again, so every idle episode's spin
            // runs out: the first at start, then one per task. None finds work.
            int tasks = 100;
            awaitWaitsAbove(backOff, 0);
            for (int i = 0; i < tasks; i++) {
                long before = backOff.metrics().idleWaits();
                backOff.execute(() -> { });
                awaitWaitsAbove(backOff, before);
            }
            // the same episodes, fed to the estimator by hand
            SpinBudget expected = new SpinBudget();
            long full = 0;
            long skipped = 0;
            for (int i = 0; i <= tasks; i++) {
                if (expected.spinInFull()) {
                    full++;
                    expected.ranOut();
                } else {
                    skipped++;
                }
            }
            EngineMetrics m = backOff.metrics();
            assertThat(skipped).as("the estimator skips spins in this sequence").isPositive();
            assertThat(m.idleSpins()).as("full spins (%s)", m).isEqualTo(full);
            assertThat(m.idleSpinsSkipped()).as("skipped spins (%s)", m).isEqualTo(skipped);
            assertThat(m.idleSpinsPaid()).as("spins that found work (%s)", m).isZero();
            assertThat(blocking.metrics().idleSpins() + blocking.metrics().idleSpinsSkipped()).as("BLOCK never decides").isZero();
        } finally {
            backOff.close();
            blocking.close();
            memory.close();
            ctx.close();
            threads.shutdownNow();
        }
    }

    private static void awaitWaitsAbove(ThreadDomain domain, long waits) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (domain.metrics().idleWaits() <= waits && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(domain.metrics().idleWaits()).as("%s blocked again", domain).isGreaterThan(waits);
    }
}
