package io.reactorrdma.verbs.ffm.provider;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.DisposableRdmaServer;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaConnection;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.verbs.ffm.testing.FfmOnTheEmulation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.List;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine on the ffm provider over the emulated rdma-core, through the public API: a server and a client, each
 * with resources opened as {@code provider("ffm")}, echo messages eager and rendezvous (READ and WRITE paths) with
 * their bytes intact and in order. The provider finds the emulated libraries through its system properties, set for
 * this class only.
 */
@ExtendWith(FfmOnTheEmulation.class)
class FfmEchoTest {

    @Test
    void echoesEagerAndRendezvousMessagesInOrderWithTheirBytes() {
        RdmaResources serverSide = RdmaResources.builder("ffm-server").provider("ffm").threads(1).build();
        RdmaResources clientSide = RdmaResources.builder("ffm-client").provider("ffm").threads(1).build();
        try {
            assertThat(serverSide.context().providerName()).isEqualTo("ffm");
            DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).runOn(serverSide)
                    .handle((in, out) -> out.send(in.receive())).bindNow();
            RdmaConnection c = RdmaClient.create().host("127.0.0.1").port(server.port()).runOn(clientSide).connectNow();
            int[] sizes = {0, 1, 64, 65, 100, 8192, 8193, 70_000, 1 << 20, 5, 64};
            long[] sums = new long[sizes.length];
            c.outbound().send(Flux.range(0, sizes.length).map(i -> {
                ByteBuf m = c.alloc().directBuffer(Math.max(1, sizes[i]));
                for (int j = 0; j < sizes[i]; j++) {
                    m.writeByte(i * 31 + j);
                }
                sums[i] = crc(m);
                return m;
            })).then().subscribe();
            List<long[]> echoed = c.inbound().receive().take(sizes.length).map(b -> {
                try {
                    return new long[]{b.readableBytes(), crc(b)};
                } finally {
                    b.release();
                }
            }).collectList().block(Duration.ofSeconds(60));
            assertThat(echoed).hasSize(sizes.length);
            for (int i = 0; i < sizes.length; i++) {
                assertThat(echoed.get(i)[0]).as("size of message %d", i).isEqualTo(sizes[i]);
                assertThat(echoed.get(i)[1]).as("bytes of message %d", i).isEqualTo(sums[i]);
            }
            c.dispose();
            server.disposeNow(Duration.ofSeconds(20));
        } finally {
            clientSide.dispose();
            serverSide.dispose();
        }
    }

    private static long crc(ByteBuf b) {
        CRC32 c = new CRC32();
        c.update(b.nioBuffer());
        return c.getValue();
    }
}
