package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.disni.calls.DisniCodes;
import io.reactorrdma.verbs.disni.cm.CmEvents;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DisniCodesTest {

    @Test
    void accessFlagsBecomeIbvMrAccessBits() {
        assertThat(DisniCodes.accessToIbv(AccessFlags.LOCAL_WRITE)).isEqualTo(IbvMr.IBV_ACCESS_LOCAL_WRITE);
        assertThat(DisniCodes.accessToIbv(AccessFlags.REMOTE_READ)).isEqualTo(IbvMr.IBV_ACCESS_REMOTE_READ);
        assertThat(DisniCodes.accessToIbv(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE))
                .isEqualTo(IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE);
        assertThat(DisniCodes.accessToIbv(AccessFlags.ALL))
                .isEqualTo(IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ);
        assertThat(DisniCodes.accessToIbv(0)).isZero();
        assertThatThrownBy(() -> DisniCodes.accessToIbv(AccessFlags.REMOTE_WRITE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LOCAL_WRITE");
        assertThatThrownBy(() -> DisniCodes.accessToIbv(IbvMr.IBV_ACCESS_REMOTE_ATOMIC)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void opcodesAreDisnisConstants() {
        assertThat(DisniCodes.opcodeToIbv(WrOpcode.WRITE)).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE);
        assertThat(DisniCodes.opcodeToIbv(WrOpcode.WRITE_WITH_IMM)).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
        assertThat(DisniCodes.opcodeToIbv(WrOpcode.SEND)).isEqualTo(IbvSendWR.IBV_WR_SEND);
        assertThat(DisniCodes.opcodeToIbv(WrOpcode.SEND_WITH_IMM)).isEqualTo(IbvSendWR.IBV_WR_SEND_WITH_IMM);
        assertThat(DisniCodes.opcodeToIbv(WrOpcode.READ)).isEqualTo(IbvSendWR.IBV_WR_RDMA_READ);
        for (WrOpcode op : WrOpcode.values()) {
            assertThat(DisniCodes.opcodeToIbv(op)).isEqualTo(op.ibv());
        }
        for (IbvWC.IbvWcOpcode op : IbvWC.IbvWcOpcode.values()) {
            WcOpcode ours = WcOpcode.fromIbv(op.getOpcode());
            if (ours != null) {
                assertThat(ours.name()).isEqualTo(op.name().substring("IBV_WC_".length()));
            }
        }
        assertThat(DisniCodes.sendFlags(true, false)).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        assertThat(DisniCodes.sendFlags(false, false)).isZero();
        assertThat(DisniCodes.sendFlags(false, true)).isEqualTo(IbvSendWR.IBV_SEND_SOLICITED);
        assertThat(DisniCodes.sendFlags(true, true)).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_SOLICITED);
        assertThat(IbvSendWR.IBV_SEND_SOLICITED).as("the C constant, 1 << 2").isEqualTo(4);
    }

    /**
     * DiSNI 2.1 cannot pass QpAttributes.maxRdAtomic: RdmaConnParam refuses initiator_depth and
     * responder_resources, and libdisni's connect and accept set both to the device's max_qp_rd_atom.
     * Should a DiSNI build take them, this test says the provider can now pass the value.
     */
    @Test
    void disni21CannotSetTheInitiatorDepthOrResponderResources() throws Exception {
        com.ibm.disni.verbs.RdmaConnParam p = DisniConnector.connParam(DisniConfig.fromSystemProperties(), 7);
        assertThatThrownBy(() -> p.setInitiator_depth((byte) 4)).isInstanceOf(java.io.IOException.class);
        assertThatThrownBy(() -> p.setResponder_resources((byte) 4)).isInstanceOf(java.io.IOException.class);
        assertThat(p.getInitiator_depth()).isZero();
        assertThat(p.getRnr_retry_count()).isEqualTo((byte) 7);
    }

    @Test
    void everyIbvStatusMapsToTheSpiOrToGeneralErrorKeepingItsName() {
        for (IbvWC.IbvWcStatus s : IbvWC.IbvWcStatus.values()) {
            WcStatus mapped = DisniCodes.status(s.ordinal());
            WcStatus listed = WcStatus.fromIbv(s.ordinal());
            if (listed != null) {
                assertThat(mapped).isSameAs(listed);
                assertThat("IBV_WC_" + mapped.name()).isEqualTo(s.name());
            } else {
                assertThat(mapped).as("%s", s).isEqualTo(WcStatus.GENERAL_ERR);
            }
            assertThat(DisniCodes.ibvStatusName(s.ordinal())).isEqualTo(s.name());
        }
        assertThat(DisniCodes.status(IbvWC.IbvWcStatus.IBV_WC_RESP_TIMEOUT_ERR.ordinal())).isEqualTo(WcStatus.GENERAL_ERR);
        assertThat(DisniCodes.ibvStatusName(99)).contains("99");
        assertThat(DisniCodes.status(99)).isEqualTo(WcStatus.GENERAL_ERR);
        assertThat(DisniCodes.errorHint(WcStatus.RNR_RETRY_EXC_ERR.ibv())).contains("posted no receive");
        assertThat(DisniCodes.errorHint(WcStatus.LOC_PROT_ERR.ibv())).contains("outside", "lkey");
    }

    @Test
    void immediateDataIsBigEndianOnTheWire() {
        int wire = DisniCodes.immToWire(0xCAFEBABE);
        java.nio.ByteBuffer nativeOrder = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder());
        nativeOrder.putInt(0, wire); // how DiSNI writes imm_data into the ibv_send_wr
        assertThat(java.nio.ByteBuffer.wrap(nativeOrder.array()).getInt()).as("bytes in network order").isEqualTo(0xCAFEBABE);
        assertThat(DisniCodes.immFromWire(wire)).isEqualTo(0xCAFEBABE);
    }

    @Test
    void cmEventNamesAndFailuresSayWhatToCheck() {
        assertThat(CmEvents.name(CmEvents.ESTABLISHED)).isEqualTo("RDMA_CM_EVENT_ESTABLISHED");
        assertThat(CmEvents.ESTABLISHED).isEqualTo(9);
        assertThat(CmEvents.DISCONNECTED).isEqualTo(10);
        assertThat(CmEvents.failure(CmEvents.ADDR_ERROR, CmEvents.ADDR_RESOLVED, "10.0.0.2:7000"))
                .contains("10.0.0.2:7000", "RDMA interface");
        assertThat(CmEvents.failure(CmEvents.REJECTED, CmEvents.ESTABLISHED, "p")).contains("rejected", "RDMA_CM_EVENT_REJECTED");
        assertThat(CmEvents.endsConnection(CmEvents.DEVICE_REMOVAL)).isTrue();
        assertThat(CmEvents.endsConnection(CmEvents.TIMEWAIT_EXIT)).isFalse();
    }
}
