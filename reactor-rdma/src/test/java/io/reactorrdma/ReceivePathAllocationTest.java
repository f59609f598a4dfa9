package io.reactorrdma;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The receiving I/O thread's allocation per message in steady state stays small: the engine delivers
 * a small message (these are 64 bytes) in a registered buffer of its own, one small object, and posts
 * the receive buffer it came in again.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReceivePathAllocationTest {

    /** Messages measured, after as many warming the path up. */
    private static final int MESSAGES = 5_000;
    /**
     * Bytes per received message the server's I/O thread may allocate on average. Measured 204–317
     * with the message's buffer one ~56 B object: the rest is the engine's and the inbound pipeline's
     * per-message work, and how much of it the JIT removes depends on what ran before in the same
     * JVM (317 in a full build, 204–221 run alone). So this bounds the path against a per-message
     * copy or wrapper chain; the buffer object's own size (it was three objects of ~160 B) is pinned
     * by {@code RegisteredByteBufTest.oneBufferIsOneSmallObject}, which does not depend on the JIT.
     */
    private static final double MAX_BYTES_PER_MESSAGE = 500.0;

    @Test
    void theReceivingIoThreadAllocatesOneSmallBufferObjectPerMessage() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeThat(threads.isThreadAllocatedMemorySupported()).as("per-thread allocation counting").isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);

        // Paranoid leak detection (the tests' level) wraps every buffer and records a stack trace on each
        // access: off from before the connection opens, as the receive buffers it posts then are used again
        // for small messages, so that the figure is the engine's own
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        long allocated;
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try (CountingSinkPair pair = new CountingSinkPair("recv-alloc")) {
            long[] io = threadIds("recv-alloc-server-io-");
            assertThat(io).as("the server's I/O thread").isNotEmpty();
            pair.send(MESSAGES); // warm-up: JIT, thread caches, the posted receives
            pair.awaitReceived();
            long before = allocated(threads, io);
            long sent = pair.send(MESSAGES);
            pair.awaitReceived();
            allocated = allocated(threads, io) - before;
            assertThat(sent).isEqualTo(2L * MESSAGES);
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
        assertThat((double) allocated / MESSAGES)
                .as("bytes the server's I/O thread allocated per message received (%d in all for %d messages)", allocated, MESSAGES)
                .isLessThan(MAX_BYTES_PER_MESSAGE);
    }

    private static long allocated(com.sun.management.ThreadMXBean threads, long[] ids) {
        long sum = 0;
        for (long b : threads.getThreadAllocatedBytes(ids)) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    private static long[] threadIds(String prefix) {
        List<Long> ids = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                ids.add(t.getId());
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }
}
