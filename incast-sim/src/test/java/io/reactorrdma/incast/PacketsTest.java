package io.reactorrdma.incast;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PacketsTest {

    @Test
    void reusesFreedPacketsGrowsPastItsFirstArraysAndRefusesASecondFree() {
        Packets packets = new Packets();
        int[] ids = new int[1000];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = packets.allocate(Packets.DATA, i, 1106, 1024, i, (i & 1) == 0);
        }
        assertThat(packets.live()).isEqualTo(1000);
        assertThat(packets.flow(ids[999])).isEqualTo(999);
        assertThat(packets.last(ids[998])).isTrue();
        for (int id : ids) {
            packets.free(id);
        }
        assertThat(packets.live()).isZero();
        int again = packets.allocate(Packets.ACK, 7, 86, 0, 3, true);
        assertThat(again).isEqualTo(ids[999]);
        assertThat(packets.ingress(again)).isEqualTo(-1);
        packets.free(again);
        assertThatThrownBy(() -> packets.free(again)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("freed twice");
    }
}
