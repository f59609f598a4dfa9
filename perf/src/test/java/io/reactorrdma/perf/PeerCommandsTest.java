package io.reactorrdma.perf;

import io.reactorrdma.perf.peer.PeerCommands;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PeerCommandsTest {

    /** ForkedPeer names the child's main class as a string (its package sits below PeerMain's); this holds the two equal. */
    @Test
    void theForkedMainClassIsPeerMain() {
        assertThat(PeerCommands.MAIN_CLASS).isEqualTo(PeerMain.class.getName());
    }
}
