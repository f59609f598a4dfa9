package io.reactorrdma;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * {@link RdmaConnection#sendNow} (RSocket's send path) allocates nothing per message on the
 * sending thread in steady state: the socket's queue and the engine's ready queue are linked
 * arrays (a chunk now and then, a few bytes per message on average), not a node per offer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SendNowAllocationTest {

    /** Messages measured, after as many warming the path up. */
    private static final int MESSAGES = 3_000;
    /**
     * Bytes per message the sending thread may allocate on average: the queue's array chunks come
     * to about 4. A node per offer (24 bytes each, two per message when the socket was idle) is far above.
     */
    private static final double MAX_BYTES_PER_MESSAGE = 12.0;

    @Test
    void sendNowAllocatesNoNodePerMessage() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeThat(threads.isThreadAllocatedMemorySupported()).as("per-thread allocation counting").isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);

        try (CountingSinkPair pair = new CountingSinkPair("send-now-alloc")) {
            pair.send(MESSAGES); // warm-up: JIT, queue chunks, thread caches
            long tid = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(tid);
            long sent = pair.send(MESSAGES);
            long allocated = threads.getThreadAllocatedBytes(tid) - before;

            pair.awaitReceived();
            assertThat((double) allocated / MESSAGES)
                    .as("bytes the sending thread allocated per sendNow (%d in all for %d messages)", allocated, MESSAGES)
                    .isLessThan(MAX_BYTES_PER_MESSAGE);
            assertThat(sent).isEqualTo(2L * MESSAGES);
        }
    }
}
