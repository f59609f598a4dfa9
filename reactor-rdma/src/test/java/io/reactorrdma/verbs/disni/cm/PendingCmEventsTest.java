package io.reactorrdma.verbs.disni.cm;

import io.reactorrdma.verbs.VerbsException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PendingCmEventsTest {

    private static long inMillis(long ms) {
        return System.nanoTime() + ms * 1_000_000L;
    }

    @Test
    void aDisconnectThatArrivesBeforeTheConnectionTakesOverIsPassedOn() {
        PendingCmEvents pending = new PendingCmEvents();
        pending.onEvent(CmEvents.ADDR_RESOLVED, null);
        pending.onEvent(CmEvents.ESTABLISHED, null);
        pending.onEvent(CmEvents.DISCONNECTED, null); // the peer closed while our side read the handshake's ACCEPT
        pending.await(CmEvents.ADDR_RESOLVED, inMillis(1000), "p");
        pending.await(CmEvents.ESTABLISHED, inMillis(1000), "p");
        List<Integer> seen = new ArrayList<>();
        pending.handOver(null, (ev, id) -> seen.add(ev));
        assertThat(seen).containsExactly(CmEvents.DISCONNECTED);
        seen.clear();
        pending.handOver(null, (ev, id) -> seen.add(ev));
        assertThat(seen).as("each event is handed over once").isEmpty();
    }

    @Test
    void anUnexpectedEventOrNoneIsAFailureThatNamesIt() {
        PendingCmEvents pending = new PendingCmEvents();
        pending.onEvent(CmEvents.REJECTED, null);
        assertThatThrownBy(() -> pending.await(CmEvents.ESTABLISHED, inMillis(1000), "10.0.0.2:7000"))
                .isInstanceOf(VerbsException.class).hasMessageContaining("rejected").hasMessageContaining("10.0.0.2:7000");
        assertThatThrownBy(() -> pending.await(CmEvents.ESTABLISHED, inMillis(20), "p"))
                .isInstanceOf(VerbsException.class).hasMessageContaining("timed out");
    }
}
