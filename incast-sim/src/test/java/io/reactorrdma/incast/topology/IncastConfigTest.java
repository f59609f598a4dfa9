package io.reactorrdma.incast.topology;

import io.reactorrdma.incast.Simulation;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IncastConfigTest {

    @Test
    void defaultsAreTheModelNotesFabric() {
        IncastConfig c = IncastConfig.defaults();
        assertThat(c.psPerByte()).isEqualTo(320);
        assertThat(c.serializationPs(1024 + 82)).isEqualTo(353_920);
        assertThat(c.headroomBytes()).isEqualTo(9375);
        // 2 × rate × delay = 6250 B: 1 + floor(6334 / 1106) + 2 = 8 packets fit in 3 × rate × delay; at 4096, 4 do not
        assertThat(IncastConfig.minimumHeadroom(25_000_000_000L, 1_000_000, 1106, 84)).isEqualTo(8 * 1106);
        assertThat(c.withMtuBytes(4096).headroomBytes()).isEqualTo(4 * 4178);
    }

    @Test
    void badParametersFailWithAMessageThatSaysWhatToDo() {
        IncastConfig c = IncastConfig.defaults();
        assertThatThrownBy(() -> c.withMtuBytes(1500)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mtuBytes 1500").hasMessageContaining("4096");
        assertThatThrownBy(() -> new IncastConfig(3_000_000_000L, 1, 1024, 82, 86, 84, 1, false, 1 << 20, 0, 0, 3, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole picoseconds");
        assertThatThrownBy(() -> new IncastConfig(25_000_000_000L, 1_000_000, 1024, 82, 86, 84, 1, true, 1 << 20, 0,
                100, 3, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("headroomBytes 100");
        assertThatThrownBy(() -> new Simulation(c.withSwitchBufferBytes(10_000), new OneBigSwitch(4)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("larger switchBufferBytes");
        Simulation sim = new Simulation(c, new OneBigSwitch(2));
        assertThatThrownBy(() -> sim.addFlow(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sim.post(0, 10, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a flow");
    }
}
