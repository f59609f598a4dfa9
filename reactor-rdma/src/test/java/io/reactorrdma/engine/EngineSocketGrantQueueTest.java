package io.reactorrdma.engine;

import io.reactorrdma.config.EngineConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A socket is in its engine's queue of untold grants at most once. Before, a socket whose grant a
 * DATA had carried (leaving it queued with nothing to tell) joined the queue again with its next
 * grant: the queue grew by one stale entry per grant while credits or chain slots were short, and
 * while it was not empty the thread domain armed for every completion.
 */
class EngineSocketGrantQueueTest {

    @Test
    void aSocketJoinsTheQueueOfUntoldGrantsOnceUntilTheEngineTakesItOff() {
        EngineSocket s = new EngineSocket(null, 1, EngineConfig.DEFAULT_SOCKET_MESSAGE_WINDOW);
        assertThat(s.addUntoldGrant(16)).as("the first grant queues the socket").isTrue();
        assertThat(s.takeUntoldGrant()).as("a DATA to the peer carries it").isEqualTo(16);
        assertThat(s.addUntoldGrant(16)).as("still queued: not queued again").isFalse();
        assertThat(s.addUntoldGrant(4)).isFalse();
        s.grantDequeued();
        assertThat(s.takeUntoldGrant()).as("what the engine sends as SOCKET_CREDIT").isEqualTo(20);
        assertThat(s.addUntoldGrant(8)).as("off the queue: the next grant queues it again").isTrue();
    }
}
