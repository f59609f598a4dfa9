package io.reactorrdma.rsocket.boot;

import io.rsocket.DuplexConnection;
import io.rsocket.transport.ClientTransport;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.net.ConnectException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Health's {@code fallbacks}: connects that went over TCP, not attempts. */
class FallbackConnectionsTest {

    @Test
    void aTcpConnectThatFailsIsNotAFallback() {
        FallbackConnections connections = new FallbackConnections();
        ClientTransport refused = new ClientTransport() {
            @Override
            public Mono<DuplexConnection> connect() {
                return Mono.error(new ConnectException("connection refused"));
            }
        };
        assertThatThrownBy(() -> connections.track(refused).connect().block(Duration.ofSeconds(10))).hasMessageContaining("refused");
        assertThat(connections.fallbacks()).as("fallbacks after a TCP connect that failed").isZero();
        assertThat(connections.inUse()).isZero();
    }
}
