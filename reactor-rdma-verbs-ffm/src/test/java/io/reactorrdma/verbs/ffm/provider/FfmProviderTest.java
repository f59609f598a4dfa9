package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import io.reactorrdma.verbs.provider.ProviderProbe;
import io.reactorrdma.verbs.provider.Providers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ffm provider as Providers finds it, and what it says when rdma-core fails it: registered under {@code ffm} and
 * preferred by {@code auto}; its probe and its opening on the emulated rdma-core, and on one without kernel support,
 * without a device, without a library, or with a memlock limit that refuses registration.
 */
class FfmProviderTest {

    @TempDir
    Path dir;

    @Test
    void itIsRegisteredAndAutoTriesItBeforeDisni() {
        assertThat(Providers.names()).contains("ffm", "disni", "shm");
        FfmProviderFactory factory = new FfmProviderFactory();
        assertThat(factory.names()).containsExactly("ffm");
        assertThat(factory.autoPriority()).isGreaterThan(100); // the DiSNI provider's
    }

    @Test
    void theRegistrationLoadsOnJava17AndBelow22SaysWhatFfmNeeds() throws Exception {
        try (var in = FfmRegistration.class.getResourceAsStream("FfmRegistration.class")) {
            byte[] head = in.readNBytes(8);
            assertThat(((head[6] & 0xFF) << 8) | (head[7] & 0xFF)).as("class file major version: Java 17's").isEqualTo(61);
        }
        FfmRegistration old = new FfmRegistration(17);
        assertThat(old.names()).containsExactly("ffm");
        ProviderProbe probe = old.probe(ProviderConfig.fromSystemProperties());
        assertThat(probe.usable()).isFalse();
        assertThat(probe.summary()).contains("ffm needs Java 22 or later", "this is Java 17", "use provider disni");
        assertThatThrownBy(() -> old.open("ffm", ProviderConfig.fromSystemProperties()))
                .isInstanceOf(ProviderUnavailableException.class).hasMessageContaining("run on JDK 22+");
        assertThat(new FfmRegistration(Runtime.version().feature()).autoPriority()).isEqualTo(new FfmProviderFactory().autoPriority());
    }

    @Test
    void onTheEmulatedRdmaCoreItProbesUsableAndOpensWithTheDevicesLimits() throws Exception {
        FfmSettings settings = settings(EmulatedRdmaCore.build(dir));
        FfmProviderFactory factory = new FfmProviderFactory(() -> settings);
        ProviderProbe probe = factory.probe(ProviderConfig.fromSystemProperties());
        assertThat(probe.usable()).as(probe.summary()).isTrue();
        assertThat(probe.summary()).contains("emu0");
        try (VerbsContext ctx = factory.open("ffm", ProviderConfig.fromSystemProperties())) {
            assertThat(ctx.providerName()).isEqualTo("ffm");
            assertThat(ctx.deviceName()).isEqualTo("emu0");
            assertThat(ctx.capabilities().maxQpWr()).isEqualTo(8192); // ibv_query_device of the emulation
            assertThat(ctx.capabilities().maxSge()).isEqualTo(30);
            assertThat(ctx.capabilities().maxCqe()).isEqualTo(65535);
            assertThat(ctx.capabilities().maxPrivateData()).isEqualTo(56);
            assertThat(((FfmContext) ctx).activeMtu()).isEqualTo(1024);
            ProtectionDomain pd = ctx.allocPd();
            var cq = ctx.createCq(64);
            var qp = ctx.createQp(pd, QpAttributes.create(cq).withMaxRdAtomic(64));
            assertThat(qp.attributes().maxRdAtomic()).as("bounded by max_qp_init_rd_atom").isEqualTo(16);
            qp.close();
        }
    }

    @Test
    void aKernelWithoutRdmaIsAClearUnavailability() throws Exception {
        FfmSettings settings = settings(EmulatedRdmaCore.build(dir, "-DNO_KERNEL"));
        FfmProviderFactory factory = new FfmProviderFactory(() -> settings);
        ProviderProbe probe = factory.probe(ProviderConfig.fromSystemProperties());
        assertThat(probe.usable()).isFalse();
        assertThat(probe.summary()).contains("no RDMA support in this kernel");
        assertThatThrownBy(() -> factory.open("ffm", ProviderConfig.fromSystemProperties()))
                .isInstanceOf(ProviderUnavailableException.class).hasMessageContaining("provider 'ffm' is unavailable")
                .hasMessageContaining("no RDMA support in this kernel").hasMessageContaining("'shm'");
    }

    @Test
    void aHostWithoutADeviceIsAClearUnavailability() throws Exception {
        FfmSettings settings = settings(EmulatedRdmaCore.build(dir, "-DDEVICES=0"));
        FfmProviderFactory factory = new FfmProviderFactory(() -> settings);
        assertThat(factory.probe(ProviderConfig.fromSystemProperties()).usable()).isFalse();
        assertThatThrownBy(() -> factory.open("ffm", ProviderConfig.fromSystemProperties()))
                .isInstanceOf(ProviderUnavailableException.class).hasMessageContaining("sees no RDMA device")
                .hasMessageContaining("ibv_devices");
    }

    @Test
    void aMissingLibraryIsAClearUnavailability() {
        FfmSettings settings = settings(dir.resolve("libibverbs.so.1"));
        FfmProviderFactory factory = new FfmProviderFactory(() -> settings);
        assertThat(factory.probe(ProviderConfig.fromSystemProperties()).summary()).contains("could not be loaded", "install rdma-core");
        assertThatThrownBy(() -> factory.open("ffm", ProviderConfig.fromSystemProperties()))
                .isInstanceOf(ProviderUnavailableException.class).hasMessageContaining("could not be loaded");
    }

    @Test
    void aRegistrationTheMemlockLimitRefusesSaysSo() throws Exception {
        try (VerbsContext ctx = FfmContext.open(settings(EmulatedRdmaCore.build(dir, "-DREG_ENOMEM")))) {
            ProtectionDomain pd = ctx.allocPd();
            assertThatThrownBy(() -> pd.allocate(1 << 20, AccessFlags.LOCAL_WRITE)).isInstanceOf(VerbsException.class)
                    .hasMessageContaining("memlock");
        }
    }

    @Test
    void anAddressThatIsNotIpv4IsRefusedWithWhatToSet() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        FfmSettings v6 = new FfmSettings(Optional.of(so), Optional.of(so), "::1", 0);
        assertThatThrownBy(() -> FfmContext.open(v6)).isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining("not IPv4").hasMessageContaining(FfmSettings.ADDRESS);
    }

    private static FfmSettings settings(Path library) {
        return new FfmSettings(Optional.of(library), Optional.of(library), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
    }
}
