package io.reactorrdma.verbs.disni;

import io.reactorrdma.verbs.VerbsException;
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
        for (int i = 0; i < n; i++) b.put(i, (byte) (i * 7 + 1));
        return b;
    }

    @Test
    void framesRoundTripWithTheirPrivateData() throws Exception {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        SideChannel.write(out, SideChannel.HELLO, bytes(56));
        SideChannel.write(out, SideChannel.GO, null);
        SideChannel.write(out, SideChannel.ACCEPT, bytes(196));
        SideChannel.write(out, SideChannel.REJECT, bytes(0));
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bos.toByteArray()));
        SideChannel.Frame hello = SideChannel.read(in, "peer");
        assertThat(hello.type()).isEqualTo(SideChannel.HELLO);
        assertThat(hello.data()).isEqualTo(bytes(56));
        assertThat(SideChannel.read(in, "peer").type()).isEqualTo(SideChannel.GO);
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
        out.writeShort(57);
        out.write(new byte[57]);
        assertThatThrownBy(() -> SideChannel.read(new DataInputStream(new ByteArrayInputStream(bos.toByteArray())), "p"))
                .isInstanceOf(VerbsException.class).hasMessageContaining("malformed");
    }
}
