package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.HostPlan;
import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.LeafSpine;
import io.reactorrdma.incast.topology.LeafSpineConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;
import io.reactorrdma.incast.topology.Placement;
import io.reactorrdma.incast.topology.Tier;
import io.reactorrdma.incast.topology.Topology;

import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LeafSpine}'s numbering, routing, ECMP hash, placement and the validation of its parameters. */
class LeafSpineTest {

    private final IncastConfig config = IncastConfig.defaults();

    @Test
    void defaultsAreTopologyBAndEveryPortHasOnePeerAndOneSwitch() {
        LeafSpine topo = new LeafSpine(LeafSpineConfig.defaults());
        assertThat(topo.hosts()).isEqualTo(480);
        assertThat(topo.switches()).isEqualTo(26);
        assertThat(topo.ports()).isEqualTo(2 * 480 + 2 * 20 * 6);
        Map<Tier, Integer> perTier = new EnumMap<>(Tier.class);
        for (int p = 0; p < topo.ports(); p++) {
            assertThat(topo.peer(topo.peer(p))).as("peer of peer of %d", p).isEqualTo(p);
            assertThat(topo.peer(p)).isNotEqualTo(p);
            int sw = topo.switchOf(p);
            if (sw >= 0) {
                assertThat(p).isBetween(topo.firstPort(sw), topo.firstPort(sw) + topo.portCount(sw) - 1);
            }
            perTier.merge(topo.tier(p), 1, Integer::sum);
            long rate = topo.linkBitsPerSecond(p, config);
            Tier tier = topo.tier(p);
            assertThat(rate).isEqualTo(tier == Tier.HOST_NIC || tier == Tier.TOR_DOWNLINK ? 25_000_000_000L
                    : 100_000_000_000L);
        }
        assertThat(perTier).containsEntry(Tier.HOST_NIC, 480).containsEntry(Tier.TOR_DOWNLINK, 480)
                .containsEntry(Tier.TOR_UPLINK, 120).containsEntry(Tier.SPINE, 120);
        for (int sw = 0; sw < topo.switches(); sw++) {
            assertThat(topo.portCount(sw)).isEqualTo(sw < 20 ? 30 : 20);
            assertThat(topo.switchBufferBytes(sw, config)).isEqualTo(sw < 20 ? 12L << 20 : 32L << 20);
        }
        // host 50 is ToR 2's slot 2; ToR 2's uplink to spine 3 meets spine 3's port to ToR 2
        assertThat(topo.host(2, 2)).isEqualTo(50);
        assertThat(topo.peer(50)).isEqualTo(topo.downlink(50));
        assertThat(topo.switchOf(topo.downlink(50))).isEqualTo(2);
        assertThat(topo.peer(topo.uplink(2, 3))).isEqualTo(topo.spinePort(3, 2));
        assertThat(topo.switchOf(topo.spinePort(3, 2))).isEqualTo(23);
    }

    @Test
    void routingStaysUnderTheTorOrCrossesTheSpineTheFlowHashes() {
        LeafSpine topo = new LeafSpine(LeafSpineConfig.defaults());
        for (int flow = 0; flow < 50; flow++) {
            int spine = topo.spineOf(flow);
            assertThat(topo.egress(2, 49, flow)).isEqualTo(topo.downlink(49)); // ToR 2 holds hosts 48..71
            assertThat(topo.egress(2, 100, flow)).isEqualTo(topo.uplink(2, spine));
            assertThat(topo.egress(20 + spine, 100, flow)).isEqualTo(topo.spinePort(spine, 4));
        }
    }

    @Test
    void ecmpIsTheDocumentedSplitMixHashAndSpreadsFlowsEvenly() {
        LeafSpine topo = new LeafSpine(LeafSpineConfig.defaults());
        int[] perSpine = new int[6];
        for (int flow = 0; flow < 6000; flow++) {
            long z = flow + 0x9E3779B97F4A7C15L;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z ^= z >>> 31;
            assertThat(topo.spineOf(flow)).isEqualTo((int) Long.remainderUnsigned(z, 6));
            perSpine[topo.spineOf(flow)]++;
        }
        for (int count : perSpine) {
            assertThat(count).isBetween(900, 1100);
        }
    }

    @Test
    void spreadPutsSixOrSevenServersUnderEveryTorAndClusteredFillsTheFirstTors() {
        LeafSpine topo = new LeafSpine(LeafSpineConfig.defaults());
        HostPlan spread = topo.place(Placement.SPREAD, 124, 346);
        int[] serversPerTor = new int[20];
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 124; i++) {
            serversPerTor[topo.torOf(spread.server(i))]++;
            assertThat(used.add(spread.server(i))).isTrue();
        }
        for (int j = 0; j < 346; j++) {
            assertThat(used.add(spread.trainer(j))).as("trainer %d on a host of its own", j).isTrue();
        }
        assertThat(serversPerTor).containsOnly(6, 7);
        assertThat(spread.server(0)).isEqualTo(0);
        assertThat(spread.server(1)).isEqualTo(24); // ToR 1, slot 0
        assertThat(spread.server(20)).isEqualTo(1); // ToR 0, slot 1

        HostPlan clustered = topo.place(Placement.CLUSTERED, 124, 346);
        for (int i = 0; i < 124; i++) {
            assertThat(clustered.server(i)).isEqualTo(i);
        }
        assertThat(topo.torOf(clustered.server(123))).isEqualTo(5);
        assertThat(clustered.trainer(0)).isEqualTo(124);
        assertThat(clustered.trainer(345)).isEqualTo(469);

        assertThatThrownBy(() -> topo.place(Placement.SPREAD, 124, 400)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fit the 480 hosts");
        assertThatThrownBy(() -> spread.trainer(346)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trainers 0..345");
    }

    @Test
    void badParametersFailWithAMessageThatSaysWhatToDo() {
        LeafSpineConfig d = LeafSpineConfig.defaults();
        assertThatThrownBy(() -> d.withShape(0, 24, 6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tors 0");
        assertThatThrownBy(() -> d.withShape(1, 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least two hosts");
        assertThatThrownBy(() -> d.withShape(100_000, 100_000, 6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("smaller fabric");
        assertThatThrownBy(() -> new LeafSpineConfig(20, 24, 6, 30_000_000_000L, 1 << 25))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uplinkBitsPerSecond 30000000000")
                .hasMessageContaining("whole picoseconds");
        assertThatThrownBy(() -> d.withSpineBufferBytes(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("spineBufferBytes 0");
        // 20 ToR ports × (4 KiB reserve + 37,500 B headroom at 100G) do not fit a 512 KiB spine
        assertThatThrownBy(() -> new Simulation(config, new LeafSpine(d.withSpineBufferBytes(512 * 1024))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("switch 20")
                .hasMessageContaining("spineBufferBytes");
    }

    @Test
    void linksRefuseARateWithoutWholePicosecondsAndALinkWithTwoRates() {
        assertThatThrownBy(() -> new Links(new RatedSwitch(3, 30_000_000_000L, false), config))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port 0")
                .hasMessageContaining("whole picoseconds");
        assertThatThrownBy(() -> new Links(new RatedSwitch(3, 100_000_000_000L, true), config))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both ends of a link");
        Links links = new Links(new LeafSpine(LeafSpineConfig.defaults()), config);
        LeafSpine topo = new LeafSpine(LeafSpineConfig.defaults());
        assertThat(links.serializationPs(0, 1106)).isEqualTo(1106L * 320);
        assertThat(links.serializationPs(topo.uplink(0, 0), 1106)).isEqualTo(1106L * 80);
        assertThat(links.headroomBytes(topo.downlink(0))).isEqualTo(9375);
        assertThat(links.headroomBytes(topo.spinePort(0, 0))).isEqualTo(37_500); // 3 × 100 Gb/s × 1 µs
    }

    /** One big switch whose host 0 link runs at {@code rate}, on both ends or only on the host's. */
    private record RatedSwitch(int hosts, long rate, boolean hostEndOnly) implements Topology {

        private OneBigSwitch base() {
            return new OneBigSwitch(hosts);
        }

        @Override
        public int ports() {
            return base().ports();
        }

        @Override
        public int switches() {
            return 1;
        }

        @Override
        public int peer(int port) {
            return base().peer(port);
        }

        @Override
        public int switchOf(int port) {
            return base().switchOf(port);
        }

        @Override
        public int firstPort(int sw) {
            return base().firstPort(sw);
        }

        @Override
        public int portCount(int sw) {
            return base().portCount(sw);
        }

        @Override
        public int egress(int sw, int dstHost, int flow) {
            return base().egress(sw, dstHost, flow);
        }

        @Override
        public long linkBitsPerSecond(int port, IncastConfig config) {
            boolean onLink = port == 0 || (!hostEndOnly && port == hosts);
            return onLink ? rate : config.linkBitsPerSecond();
        }
    }
}
