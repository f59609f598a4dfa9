package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.engine.MessageRefusedException;
import io.reactorrdma.verbs.soft.SoftContext;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Through the public API: a server that cannot allocate a large message's
 * destination refuses it, the client's {@code send} fails with the server's reason, and the
 * connection goes on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaRendezvousRefusalTest {

    @Test
    void aMessageThePeerCannotAllocateFailsItsSendAndTheConnectionGoesOn() {
        // The server's context may hold 12 MiB registered: its 4 MiB pool blocks fit, a 12 MiB destination does not.
        SoftFaults scarce = SoftFaults.none().failRegistrationsAbove(12L << 20);
        RdmaResources serverResources = RdmaResources.builder("server").openWith(c -> SoftContext.openLoopback(c.soft(), scarce)).threads(1)
                .idle(IdleStrategy.BACK_OFF).build();
        RdmaResources clientResources = RdmaResources.builder("client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        DisposableRdmaServer server = RdmaServer.create().port(0).runOn(serverResources)
                .handle((in, out) -> out.send(in.receive()))
                .bindNow();
        try {
            RdmaConnection c = RdmaClient.create().port(server.port()).runOn(clientResources).connectNow();
            ByteBuf big = c.alloc().directBuffer(12 << 20);
            big.writerIndex(12 << 20);
            StepVerifier.create(c.outbound().send(Mono.just(big)).then())
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(MessageRefusedException.class)
                            .hasMessageContaining("could not allocate 12 MiB").hasMessageContaining("injected fault"))
                    .verify(Duration.ofSeconds(30));
            c.outbound().send(Mono.just(message(c, 1 << 20, 1))).then().block(Duration.ofSeconds(30));
            StepVerifier.create(c.inbound().receive().take(1).map(b -> {
                        int n = b.readableBytes();
                        b.release();
                        return n;
                    }))
                    .expectNext(1 << 20)
                    .verifyComplete();
            c.dispose();
        } finally {
            server.disposeNow(Duration.ofSeconds(10));
            clientResources.dispose();
            serverResources.dispose();
        }
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }
}
