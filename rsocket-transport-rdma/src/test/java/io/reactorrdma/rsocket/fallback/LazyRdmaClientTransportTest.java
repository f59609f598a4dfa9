package io.reactorrdma.rsocket.fallback;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.rsocket.DuplexConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Resources built on the first connect that can, kept afterwards, disposed with the transport or when unusable. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LazyRdmaClientTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private static RdmaResources loopback(String name) {
        return RdmaResources.builder(name).provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
    }

    @Test
    void retriesTheSupplierUntilTheProviderOpensThenKeepsTheResources() {
        RdmaResources serverResources = loopback("lazy-server");
        RdmaServerTransport.Bound server = RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources))
                .start(c -> c.onClose()).block(WAIT);
        AtomicInteger attempts = new AtomicInteger();
        List<RdmaResources> built = new ArrayList<>();
        LazyRdmaClientTransport transport = LazyRdmaClientTransport.create(() -> {
            if (attempts.incrementAndGet() < 3) {
                throw new ProviderUnavailableException("attempt " + attempts.get() + ": not yet");
            }
            RdmaResources r = loopback("lazy-client");
            built.add(r);
            return r;
        }, "127.0.0.1", server.address().getPort());
        try {
            assertThatThrownBy(() -> transport.connect().block(WAIT)).isInstanceOf(ProviderUnavailableException.class)
                    .hasMessageContaining("attempt 1");
            assertThatThrownBy(() -> transport.connect().block(WAIT)).hasMessageContaining("attempt 2");
            assertThat(transport.resources()).isEmpty();
            DuplexConnection first = transport.connect().block(WAIT);
            DuplexConnection second = transport.connect().block(WAIT);
            assertThat(built).as("built once, then kept").hasSize(1);
            assertThat(transport.resources()).containsSame(built.get(0));
            first.dispose();
            second.dispose();
        } finally {
            transport.dispose();
            server.dispose();
            serverResources.dispose();
        }
        assertThat(built.get(0).isDisposed()).as("the transport disposes what it built").isTrue();
        assertThatThrownBy(() -> transport.connect().block(WAIT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("disposed");
        LiveBufferWait.awaitZero(built.get(0), serverResources); // RSocket releases what it held just after the close
    }

    @Test
    void disposesWhatItBuiltWhenItCannotUseIt() {
        List<RdmaResources> built = new ArrayList<>();
        LazyRdmaClientTransport transport = LazyRdmaClientTransport.create(() -> {
            RdmaResources r = loopback("lazy-unusable");
            built.add(r);
            return r;
        }, r -> {
            throw new IllegalArgumentException("the test's client factory refuses");
        });
        assertThatThrownBy(() -> transport.connect().block(WAIT)).hasMessageContaining("refuses");
        assertThat(built).hasSize(1);
        assertThat(built.get(0).isDisposed()).isTrue();
        assertThat(transport.resources()).isEmpty();
        transport.dispose();
    }

    @Test
    void rejectsAFrameLengthRsocketCannotCarry() {
        assertThatThrownBy(() -> LazyRdmaClientTransport.create(() -> null, r -> null, 1 << 24))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxFrameLength");
    }
}
