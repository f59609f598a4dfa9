package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRejectedException;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A host with two RDMA devices (the emulation puts 127.0.0.1 on emu0 and 127.0.0.2 on emu1): a listener on the wildcard
 * address takes requests on both, and one that came in on another device than the context's cannot be accepted; that
 * must say so and what to do, and refuse the client, rather than end in rdma_create_qp's bare EINVAL.
 */
class FfmMultiDeviceTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void aWildcardListenerRefusesARequestFromAnotherDeviceSayingWhatToDoAndAcceptsOneOnItsOwn() throws Exception {
        Path so = EmulatedRdmaCore.build(dir, "-DDEVICES=2");
        try (VerbsContext server = FfmContext.open(settings(so, "127.0.0.1"));
             VerbsContext otherDevice = FfmContext.open(settings(so, "127.0.0.2"));
             VerbsContext sameDevice = FfmContext.open(settings(so, "127.0.0.1"));
             CmListener listener = server.listen(new InetSocketAddress("0.0.0.0", 0), 4)) {
            assertThat(server.deviceName()).isEqualTo("emu0");
            assertThat(otherDevice.deviceName()).isEqualTo("emu1");
            int port = listener.localAddress().getPort();

            QueuePair far = otherDevice.createQp(otherDevice.allocPd(), QpAttributes.create(otherDevice.createCq(64)));
            CompletableFuture<CmConnection> refused = CompletableFuture.supplyAsync(
                    () -> otherDevice.connect(new InetSocketAddress("127.0.0.2", port), far, null, VerbsFixture.TIMEOUT));
            ConnectionRequest request = listener.poll(VerbsFixture.TIMEOUT);
            assertThat(request).isNotNull();
            QueuePair serverQp = server.createQp(server.allocPd(), QpAttributes.create(server.createCq(64)));
            assertThatThrownBy(() -> request.accept(serverQp, null)).isInstanceOf(VerbsException.class)
                    .hasMessageContaining("came in on RDMA device emu1, not on this context's emu0")
                    .hasMessageContaining("wildcard address (0.0.0.0)").hasMessageContaining("127.0.0.1")
                    .hasMessageContaining("-D" + FfmSettings.ADDRESS).hasMessageNotContaining("EINVAL:");
            assertThatThrownBy(() -> refused.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(ConnectionRejectedException.class);

            QueuePair near = sameDevice.createQp(sameDevice.allocPd(), QpAttributes.create(sameDevice.createCq(64)));
            CompletableFuture<CmConnection> accepted = CompletableFuture.supplyAsync(
                    () -> sameDevice.connect(new InetSocketAddress("127.0.0.1", port), near, null, VerbsFixture.TIMEOUT));
            ConnectionRequest own = listener.poll(VerbsFixture.TIMEOUT);
            assertThat(own).isNotNull();
            assertThat(own.accept(serverQp, null).isConnected()).as("the queue pair was left free by the refusal").isTrue();
            assertThat(accepted.get(30, TimeUnit.SECONDS).isConnected()).isTrue();
        }
    }

    @Test
    void theWildcardAddressAsTheContextsAddressSaysItNamesNoDevice() throws Exception {
        Path so = EmulatedRdmaCore.build(dir, "-DDEVICES=2");
        assertThatThrownBy(() -> FfmContext.open(settings(so, "0.0.0.0"))).isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining(FfmSettings.ADDRESS + "=0.0.0.0 is the wildcard address")
                .hasMessageContaining("IPv4 address of its RDMA interface");
    }

    private static FfmSettings settings(Path so, String address) {
        return new FfmSettings(Optional.of(so), Optional.of(so), address, FfmSettings.DEFAULT_MAX_INLINE);
    }
}
