package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRejectedException;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import io.reactorrdma.verbs.work.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Connection requests the server cannot take (a queue pair that already serves a connection, a listener going away, an
 * accept that fails) and connects the client gives up on: the other side is told at once either way.
 */
class FfmAcceptTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void acceptingWithAQueuePairThatServesAConnectionRefusesTheClientAndLeavesTheConnectionAlone() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        FfmSettings settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
        try (VerbsContext a = FfmContext.open(settings); VerbsContext b = FfmContext.open(settings);
             VerbsContext c = FfmContext.open(settings)) {
            VerbsFixture f = VerbsFixture.connected(a, b);
            QueuePair other = c.createQp(c.allocPd(), QpAttributes.create(c.createCq(64)));
            try (CmListener listener = b.listen(new java.net.InetSocketAddress("127.0.0.1", 0), 1)) {
                CompletableFuture<Void> client = CompletableFuture.runAsync(
                        () -> c.connect(listener.localAddress(), other, null, VerbsFixture.TIMEOUT));
                ConnectionRequest request = listener.poll(VerbsFixture.TIMEOUT);
                assertThat(request).isNotNull();
                assertThatThrownBy(() -> request.accept(f.qpB, null)).isInstanceOf(VerbsException.class)
                        .hasMessageContaining("already given to a connection");
                assertThatThrownBy(client::join).hasCauseInstanceOf(ConnectionRejectedException.class);
            }
            assertThat(f.qpB.errorCause()).as("the connection the queue pair serves").isNull();
            f.postRecv(f.qpB, f.mrB, 1, 0, 64);
            VerbsFixture.post(f.qpA, VerbsFixture.send(2, f.mrA, 0, 8));
            assertThat(f.awaitOne(f.cqB).status()).as("the first connection still carries data").isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    @Timeout(120)
    void aConnectRequestWhoseListenerIsNoLongerRegisteredIsRefusedAtOnce() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        FfmSettings settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
        try (FfmContext server = FfmContext.open(settings); VerbsContext client = FfmContext.open(settings)) {
            try (FfmListener listener = (FfmListener) server.listen(new java.net.InetSocketAddress("127.0.0.1", 0), 1)) {
                // the racing point: the listener has unregistered (it is closing) while its id still listens
                server.cm().unregister(listener.cmIdAddress());
                QueuePair qp = client.createQp(client.allocPd(), QpAttributes.create(client.createCq(64)));
                // refused, not left to time out
                assertThatThrownBy(() -> client.connect(listener.localAddress(), qp, null, java.time.Duration.ofSeconds(60)))
                        .isInstanceOf(ConnectionRejectedException.class);
            }
        }
    }

    @Test
    @Timeout(120)
    void anAcceptThatFailsAfterTheQueuePairWasCreatedRejectsTheClientInsteadOfLeavingItToTimeOut() throws Exception {
        Path so = EmulatedRdmaCore.build(dir, "-DACCEPT_FAILS");
        FfmSettings settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
        try (VerbsContext server = FfmContext.open(settings); VerbsContext client = FfmContext.open(settings);
             CmListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), 1)) {
            QueuePair clientQp = client.createQp(client.allocPd(), QpAttributes.create(client.createCq(64)));
            QueuePair serverQp = server.createQp(server.allocPd(), QpAttributes.create(server.createCq(64)));
            // a connect timeout far beyond the test's: only a refusal ends it in time
            CompletableFuture<Void> connecting = CompletableFuture.runAsync(
                    () -> client.connect(listener.localAddress(), clientQp, null, Duration.ofSeconds(600)));
            ConnectionRequest request = listener.poll(VerbsFixture.TIMEOUT);
            assertThat(request).isNotNull();
            assertThatThrownBy(() -> request.accept(serverQp, null)).isInstanceOf(VerbsException.class)
                    .hasMessageContaining("rdma_accept");
            assertThatThrownBy(() -> connecting.get(30, TimeUnit.SECONDS)).as("the client is refused, not left waiting")
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ConnectionRejectedException.class);
        }
    }

    @Test
    @Timeout(120)
    void aConnectThatTimedOutAfterItWentOutDisconnectsTheServerThatAcceptsItLate() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        FfmSettings settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
        try (VerbsContext server = FfmContext.open(settings); VerbsContext client = FfmContext.open(settings);
             CmListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), 1)) {
            QueuePair clientQp = client.createQp(client.allocPd(), QpAttributes.create(client.createCq(64)));
            QueuePair serverQp = server.createQp(server.allocPd(), QpAttributes.create(server.createCq(64)));
            CompletableFuture<Void> connecting = CompletableFuture.runAsync(
                    () -> client.connect(listener.localAddress(), clientQp, null, Duration.ofMillis(500)));
            ConnectionRequest request = listener.poll(VerbsFixture.TIMEOUT);
            assertThat(request).isNotNull();
            // the server answers only once the client has given up: its connect request is still there to accept
            assertThatThrownBy(() -> connecting.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(VerbsException.class)
                    .hasMessageContaining("timed out");
            CmConnection accepted = request.accept(serverQp, null);
            assertThat(accepted.onDisconnect().get(30, TimeUnit.SECONDS)).as("the client that gave up disconnects")
                    .contains("disconnected by the peer");
            assertThat(serverQp.state()).isEqualTo(QpState.ERROR);
        }
    }
}
