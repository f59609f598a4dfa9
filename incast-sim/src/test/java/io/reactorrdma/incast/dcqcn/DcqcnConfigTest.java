package io.reactorrdma.incast.dcqcn;

import io.reactorrdma.incast.Simulation;
import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DcqcnConfigTest {

    @Test
    void defaultsAreThePaperColumnAt25G() {
        DcqcnConfig c = DcqcnConfig.defaults();
        assertThat(c.enabled()).isTrue();
        assertThat(c.kminBytes()).isEqualTo(5_000);
        assertThat(c.kmaxBytes()).isEqualTo(100_000);
        assertThat(c.g()).isEqualTo(1.0 / 256);
        assertThat(c.raiBitsPerSecond()).isEqualTo(25_000_000_000L / 20);
        assertThat(c.rhaiBitsPerSecond()).isEqualTo(25_000_000_000L / 10);
        assertThat(c.cnpBytes()).isEqualTo(98);
        assertThat(DcqcnConfig.off().enabled()).isFalse();
    }

    @Test
    void badParametersFailWithAMessageThatSaysWhatToDo() {
        DcqcnConfig c = DcqcnConfig.defaults();
        assertThatThrownBy(() -> c.withMarking(100, 100, 0.1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Kmin < Kmax");
        assertThatThrownBy(() -> c.withMarking(1, 100, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pmax 0.0");
        assertThatThrownBy(() -> new DcqcnConfig(true, 1, 2, 0.5, 1.5, 1, 1, 0, 5, 1, 1, 1, 1, 98))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("g 1.5");
        assertThatThrownBy(() -> new DcqcnConfig(true, 1, 2, 0.5, 0.1, 0, 1, 0, 5, 1, 1, 1, 1, 98))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("alphaTimerPs 0");
        DcqcnConfig fast = new DcqcnConfig(true, 1, 2, 0.5, 0.1, 1, 1, 0, 5, 1, 1, 1, 40_000_000_000L, 98);
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(2));
        sim.addFlow(0, 1);
        assertThatThrownBy(() -> sim.congestionControl(fast, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("above the NIC's line rate");
        Simulation started = new Simulation(IncastConfig.defaults(), new OneBigSwitch(2));
        started.run();
        assertThatThrownBy(() -> started.congestionControl(c, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before the first run");
    }

    @Test
    void theMarkerNeverMarksAtOrBelowKminAlwaysAboveKmaxAndLinearlyBetween() {
        DcqcnConfig c = DcqcnConfig.defaults().withMarking(10_000, 110_000, 0.2);
        EcnMarker marker = new EcnMarker(c, 3, 7);
        for (int i = 0; i < 100_000; i++) {
            assertThat(marker.mark(0, i % 10_001)).isFalse();
        }
        for (int i = 0; i < 1000; i++) {
            assertThat(marker.mark(1, 110_001 + i)).isTrue();
        }
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            marker.mark(2, 60_000); // p = 0.2 × 50/100 = 0.1
        }
        // binomial(200 000, 0.1): σ = 134 marks; 5σ
        assertThat(marker.marks(2)).isBetween(20_000L - 670, 20_000L + 670);
        assertThat(marker.marks(0)).isZero();
        assertThat(marker.total()).isEqualTo(1000 + marker.marks(2));
    }

    @Test
    void theNotificationPointSendsAtMostOneCnpPerQpPerInterval() {
        NotificationPoints np = new NotificationPoints(DcqcnConfig.defaults());
        long interval = DcqcnConfig.DEFAULT_CNP_INTERVAL_PS;
        assertThat(np.onMarked(40, 0)).isTrue();
        assertThat(np.onMarked(40, interval - 1)).isFalse();
        assertThat(np.onMarked(3, interval - 1)).isTrue(); // another QP
        assertThat(np.onMarked(40, interval)).isTrue();
        assertThat(np.total()).isEqualTo(3);
    }
}
