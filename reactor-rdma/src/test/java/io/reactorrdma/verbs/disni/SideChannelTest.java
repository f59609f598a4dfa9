package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.disni.cm.SideChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SideChannelTest {

    private static ByteBuffer bytes(int n) {
        ByteBuffer b = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (i * 7 + 1));
        }
        return b;
    }

    @Test
    void framesRoundTripWithTheirPrivateData() throws Exception {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        SideChannel.write(out, SideChannel.HELLO, 3, bytes(56));
        SideChannel.write(out, SideChannel.GO, 7, null);
        SideChannel.write(out, SideChannel.ACCEPT, bytes(196));
        SideChannel.write(out, SideChannel.REJECT, bytes(0));
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bos.toByteArray()));
        SideChannel.Frame hello = SideChannel.read(in, "peer");
        assertThat(hello.type()).isEqualTo(SideChannel.HELLO);
        assertThat(hello.data()).isEqualTo(bytes(56));
        assertThat(hello.rnrRetry()).isEqualTo(3);
        SideChannel.Frame go = SideChannel.read(in, "peer");
        assertThat(go.type()).isEqualTo(SideChannel.GO);
        assertThat(go.rnrRetry()).isEqualTo(7);
        assertThat(go.data().remaining()).isZero();
        assertThat(SideChannel.read(in, "peer").data()).isEqualTo(bytes(196));
        SideChannel.Frame reject = SideChannel.read(in, "peer");
        assertThat(reject.type()).isEqualTo(SideChannel.REJECT);
        assertThat(reject.data().remaining()).isZero();
        assertThatThrownBy(() -> SideChannel.read(in, "peer")).isInstanceOf(EOFException.class).hasMessageContaining("closed");
    }

    @Test
    void privateDataBeyondTheCmLimitsIsRefusedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> SideChannel.checkLength(SideChannel.HELLO, ByteBuffer.allocate(57), "connect"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
        assertThatThrownBy(() -> SideChannel.checkLength(SideChannel.ACCEPT, ByteBuffer.allocate(197), "accept"))
                .hasMessageContaining("196");
        assertThatThrownBy(() -> SideChannel.checkLength(SideChannel.REJECT, ByteBuffer.allocate(149), "reject"))
                .hasMessageContaining("148");
        assertThat(SideChannel.checkLength(SideChannel.HELLO, null, "connect")).isZero();
    }

    @Test
    void aForeignProtocolOrAnOversizedFrameIsAClearError() throws Exception {
        DataInputStream http = new DataInputStream(new ByteArrayInputStream("HTTP/1.1 400\r\n".getBytes()));
        assertThatThrownBy(() -> SideChannel.read(http, "10.0.0.9:80")).isInstanceOf(VerbsException.class)
                .hasMessageContaining("does not speak").hasMessageContaining("10.0.0.9:80");
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        out.writeInt(SideChannel.MAGIC);
        out.writeByte(SideChannel.HELLO);
        out.writeShort(58); // the rnr byte and 57 bytes of connect data
        out.write(new byte[58]);
        assertThatThrownBy(() -> SideChannel.read(new DataInputStream(new ByteArrayInputStream(bos.toByteArray())), "p"))
                .isInstanceOf(VerbsException.class).hasMessageContaining("malformed");
    }

    /**
     * rdma_cm gives each queue pair the RNR retry count of the <em>peer's</em> rdma_conn_param, so
     * the count a side sends to rdma_cm is the one the other side's queue pair asked for: the
     * client connects with the server QP's rnrRetry (from GO), the server accepts with the client
     * QP's (from HELLO). Before, each side passed its own, which set the peer's retries.
     */
    @Test
    void eachSideHandsRdmaCmThePeersRnrRetryAndItsRetryCount() throws Exception {
        DisniConfig config = DisniConfig.defaults();
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        int clientRnr = 2;
        int serverRnr = 7;
        SideChannel.write(out, SideChannel.HELLO, clientRnr, null); // client → server
        SideChannel.write(out, SideChannel.GO, serverRnr, null);    // server → client
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bos.toByteArray()));
        int helloRnr = SideChannel.read(in, "client").rnrRetry();
        int goRnr = SideChannel.read(in, "server").rnrRetry();
        com.ibm.disni.verbs.RdmaConnParam accept = DisniConnector.connParam(config, helloRnr);
        com.ibm.disni.verbs.RdmaConnParam connect = DisniConnector.connParam(config, goRnr);
        assertThat(accept.getRnr_retry_count()).as("rdma_accept: the client QP's sends").isEqualTo((byte) clientRnr);
        assertThat(connect.getRnr_retry_count()).as("rdma_connect: the server QP's sends").isEqualTo((byte) serverRnr);
        assertThat(connect.getRetry_count()).isEqualTo((byte) DisniConfig.DEFAULT_RETRY_COUNT);
    }

    @Test
    void anOlderPeerOrABadRnrByteIsAClearError() throws Exception {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        out.writeInt(SideChannel.MAGIC_V1);
        out.writeByte(SideChannel.HELLO);
        out.writeShort(0);
        assertThatThrownBy(() -> SideChannel.read(new DataInputStream(new ByteArrayInputStream(bos.toByteArray())), "p"))
                .isInstanceOf(VerbsException.class).hasMessageContaining("older reactor-rdma");
        ByteArrayOutputStream bad = new ByteArrayOutputStream();
        DataOutputStream o2 = new DataOutputStream(bad);
        o2.writeInt(SideChannel.MAGIC);
        o2.writeByte(SideChannel.GO);
        o2.writeShort(1);
        o2.writeByte(9);
        assertThatThrownBy(() -> SideChannel.read(new DataInputStream(new ByteArrayInputStream(bad.toByteArray())), "p"))
                .isInstanceOf(VerbsException.class).hasMessageContaining("RNR retry count 9");
        assertThatThrownBy(() -> SideChannel.write(o2, SideChannel.HELLO, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
