package io.reactorrdma.perf;

import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.incast.EngineDefaults;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The incast simulator copies the engine's constants and limits (it needs no RDMA engine); here, where both are on the
 * class path, the copies must be the engine's.
 */
class IncastEngineDefaultsTest {

    @Test
    void theSimulatorsEngineConstantsAreTheEnginesOwn() {
        assertThat(EngineDefaults.SEND_QUEUE_DEPTH).isEqualTo(EngineConfig.DEFAULT_SEND_QUEUE_DEPTH);
        assertThat(EngineDefaults.FRAGMENT_SIZE).isEqualTo(EngineConfig.DEFAULT_FRAGMENT_SIZE);
        assertThat(EngineDefaults.SEND_WINDOW_BYTES).isEqualTo(EngineConfig.DEFAULT_SEND_WINDOW_BYTES);
        assertThat(EngineDefaults.MAX_MESSAGE_SIZE).isEqualTo(EngineConfig.DEFAULT_MAX_MESSAGE_SIZE);
    }

    @Test
    void theSimulatorRefusesWhatTheEngineRefusesWithItsMessage() {
        EngineConfig d = EngineConfig.defaults();
        d.withSendQueueDepth(EngineDefaults.MIN_SEND_QUEUE_DEPTH).withFragmentSize(EngineDefaults.MIN_FRAGMENT_SIZE);
        EngineDefaults.check(EngineDefaults.MIN_SEND_QUEUE_DEPTH, EngineDefaults.MIN_FRAGMENT_SIZE);
        String engineDepth = message(() -> d.withSendQueueDepth(EngineDefaults.MIN_SEND_QUEUE_DEPTH - 1));
        String engineFragment = message(() -> d.withFragmentSize(EngineDefaults.MIN_FRAGMENT_SIZE - 1));
        assertThatThrownBy(() -> EngineDefaults.check(EngineDefaults.MIN_SEND_QUEUE_DEPTH - 1, EngineDefaults.FRAGMENT_SIZE))
                .hasMessage(engineDepth);
        assertThatThrownBy(() -> EngineDefaults.check(EngineDefaults.SEND_QUEUE_DEPTH, EngineDefaults.MIN_FRAGMENT_SIZE - 1))
                .hasMessage(engineFragment);
    }

    private static String message(Runnable r) {
        try {
            r.run();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        throw new AssertionError("the engine accepted it");
    }
}
