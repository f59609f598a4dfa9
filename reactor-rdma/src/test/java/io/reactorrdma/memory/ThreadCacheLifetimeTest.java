package io.reactorrdma.memory;

import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A dying thread's cache goes back to the shared pools. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ThreadCacheLifetimeTest {

    private static final int BLOCK = 1 << 20;

    private VerbsContext ctx;
    private RegisteredPool pool;

    @BeforeEach
    void open() {
        ctx = SoftContext.openLoopback(SoftConfig.defaults());
        // no retained empty blocks: what stays registered is what is in use or cached
        pool = new RegisteredPool("local", ctx.allocPd(), AccessFlags.LOCAL_WRITE,
                AllocatorConfig.defaults().withBlockSize(BLOCK).withRetainedBytes(0));
    }

    @AfterEach
    void close() {
        pool.close();
        ctx.close();
    }

    @Test
    void cachesOfAThousandShortLivedThreadsReturnToThePool() throws Exception {
        int threads = 1000;
        int batch = 50;
        for (int started = 0; started < threads; started += batch) {
            List<Thread> running = new ArrayList<>();
            for (int i = 0; i < batch; i++) {
                Thread t = new Thread(() -> {
                    // a size-class slot (the thread refills a batch of them) and a page run (kept in the thread's run cache)
                    Chunk small = pool.allocate(1000);
                    Chunk large = pool.allocate(72 * 1024);
                    pool.free(small);
                    pool.free(large);
                }, "short-lived-" + (started + i));
                t.start();
                running.add(t);
            }
            for (Thread t : running) {
                t.join();
            }
        }
        assertThat(pool.statistics().liveBuffers()).isZero();
        // the caches of dead threads are found by the GC: give it a bounded number of chances
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long registered = pool.statistics().registeredBytes();
        while (registered > 2L * BLOCK && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
            registered = pool.statistics().registeredBytes();
        }
        assertThat(registered).as("bytes registered after %d threads that allocated, freed and died (about 100 KiB cached each)", threads)
                .isLessThanOrEqualTo(2L * BLOCK);
    }
}
