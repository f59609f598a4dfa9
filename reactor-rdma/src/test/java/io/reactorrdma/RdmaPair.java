package io.reactorrdma;

import io.reactorrdma.config.IdleStrategy;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixture of the tests that run one server and its clients in this JVM: two loopback
 * {@link RdmaResources} ({@code server} and {@code client}, one I/O thread each, backing off when
 * idle), a server bound on the server side with the test's handler, and clients connecting to it
 * from the client side. After each test it disposes the server and both resources and asserts that
 * neither allocator holds a live buffer.
 *
 * <pre>{@code
 * @RegisterExtension
 * final RdmaPair pair = new RdmaPair();
 *
 * pair.serve(s -> s.handle((in, out) -> out.send(in.receive())));
 * RdmaConnection c = pair.connect();
 * }</pre>
 *
 * The resources are built on first use, so a test may first {@link #configure} them.
 */
final class RdmaPair implements AfterEachCallback {

    private UnaryOperator<RdmaResources.Builder> serverConfig = UnaryOperator.identity();
    private UnaryOperator<RdmaResources.Builder> clientConfig = UnaryOperator.identity();
    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private DisposableRdmaServer server;

    /** Adds {@code both} to both sides' resources (engine or soft-provider settings); before first use. */
    RdmaPair configure(UnaryOperator<RdmaResources.Builder> both) {
        return configure(both, both);
    }

    /** Adds {@code server} to the server's resources and {@code client} to the client's; before first use. */
    RdmaPair configure(UnaryOperator<RdmaResources.Builder> server, UnaryOperator<RdmaResources.Builder> client) {
        if (serverResources != null) {
            throw new IllegalStateException(
                    "the pair's resources are built already: configure it before serving, connecting or reading them");
        }
        this.serverConfig = server;
        this.clientConfig = client;
        return this;
    }

    /** The server side's resources (built on first use). */
    RdmaResources serverResources() {
        build();
        return serverResources;
    }

    /** The client side's resources (built on first use). */
    RdmaResources clientResources() {
        build();
        return clientResources;
    }

    private void build() {
        if (serverResources == null) {
            serverResources = serverConfig.apply(loopback("server")).build();
            clientResources = clientConfig.apply(loopback("client")).build();
        }
    }

    private static RdmaResources.Builder loopback(String name) {
        return RdmaResources.builder(name).provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF);
    }

    /** Binds the server on the server side, on a free port, with what {@code handler} adds (its handler). */
    DisposableRdmaServer serve(UnaryOperator<RdmaServer> handler) {
        if (server != null) {
            throw new IllegalStateException("the pair serves already; bind another server by hand on serverResources()");
        }
        server = handler.apply(RdmaServer.create().port(0).runOn(serverResources())).bindNow();
        return server;
    }

    /** The bound server. */
    DisposableRdmaServer server() {
        if (server == null) {
            throw new IllegalStateException("no server yet: call serve(...) first");
        }
        return server;
    }

    /** A client of the server on the client side's resources, to connect as the test needs. */
    RdmaClient client() {
        return RdmaClient.create().port(server().port()).runOn(clientResources());
    }

    /** A connection to the server from the client side. */
    RdmaConnection connect() {
        return client().connectNow();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    /** Disposes the server and both resources, then asserts that neither allocator holds a live buffer. */
    void close() {
        if (server != null) {
            server.disposeNow(Duration.ofSeconds(10));
        }
        if (serverResources == null) {
            return;
        }
        clientResources.dispose();
        serverResources.dispose();
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }
}
