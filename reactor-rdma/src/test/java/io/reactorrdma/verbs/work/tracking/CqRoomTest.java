package io.reactorrdma.verbs.work.tracking;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CqRoomTest {

    @Test
    void aDestroyedQueuePairsOutstandingRoomComesBackOnlyWithAPollThatBeganAfterIt() {
        CqRoom room = new CqRoom(8);
        room.reserve(8, 8);
        long before = room.heldStamp();
        room.releaseDestroyed(8, 8, 2, 3);
        assertThat(room.holds()).isTrue();
        assertThatThrownBy(() -> room.reserve(8, 8)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 send and 3 receive completions of destroyed queue pairs");
        room.reserve(6, 5);
        room.drained(before); // a poll that began before the release proves nothing
        assertThat(room.holds()).isTrue();
        room.drained(room.heldStamp());
        assertThat(room.holds()).isFalse();
        room.reserve(2, 3);
        assertThatThrownBy(() -> room.reserve(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nothingOutstandingOrNeverOnTheDeviceGivesEverythingBackAtOnce() {
        CqRoom room = new CqRoom(4);
        room.reserve(4, 4);
        room.releaseDestroyed(4, 4, 0, 0);
        assertThat(room.holds()).isFalse();
        assertThat(room.heldStamp()).isZero();
        room.reserve(4, 4);
        room.release(4, 4);
        room.reserve(4, 4);
    }
}
