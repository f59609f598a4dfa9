package io.reactorrdma.engine;

import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.soft.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rdma.idle.waits}: an idle I/O thread that blocks is counted; a spinning one never blocks. */
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
}
