package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.verbs.ProviderUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RdmaInterfacesTest {

    @TempDir
    Path sys;

    @Test
    void netdevsComeFromGidAttributesAndThePciFunction() throws IOException {
        Path ndevs = Files.createDirectories(sys.resolve("mlx5_0/ports/1/gid_attrs/ndevs"));
        Files.writeString(ndevs.resolve("0"), "ens1f0\n");
        Files.writeString(ndevs.resolve("1"), "ens1f0\n");
        Files.createDirectories(sys.resolve("mlx5_0/device/net/ens1f0"));
        Files.createDirectories(sys.resolve("mlx5_1/device/net/ib0"));
        RdmaInterfaces ifs = new RdmaInterfaces(sys, n -> List.of());
        assertThat(ifs.netdevs("mlx5_0")).containsExactly("ens1f0");
        assertThat(ifs.netdevs("mlx5_1")).containsExactly("ib0");
        assertThat(ifs.netdevs("absent")).isEmpty();
    }

    @Test
    void theFirstIpv4OfAnRdmaInterfaceIsChosenAndMapsBackToItsDevice() throws IOException {
        Files.createDirectories(sys.resolve("mlx5_0/device/net/ens1f0"));
        Files.createDirectories(sys.resolve("rxe0/ports/1/gid_attrs/ndevs"));
        Files.writeString(sys.resolve("rxe0/ports/1/gid_attrs/ndevs/0"), "eth0");
        InetAddress v6 = InetAddress.getByName("fe80::1");
        InetAddress v4 = InetAddress.getByName("192.0.2.10");
        Map<String, List<InetAddress>> addrs = Map.of("ens1f0", List.of(v6), "eth0", List.of(v6, v4));
        RdmaInterfaces ifs = new RdmaInterfaces(sys, n -> addrs.getOrDefault(n, List.of()));
        assertThat(ifs.firstIpv4(List.of("mlx5_0", "rxe0"))).isEqualTo(v4);
        assertThat(ifs.deviceOf(List.of("mlx5_0", "rxe0"), v4)).isEqualTo("rxe0");
        assertThat(ifs.deviceOf(List.of("mlx5_0", "rxe0"), InetAddress.getByName("192.0.2.99"))).isNull();
    }

    @Test
    void withoutAnAddressTheProviderSaysWhatToConfigure() throws IOException {
        Files.createDirectories(sys.resolve("mlx5_0/device/net/ens1f0"));
        RdmaInterfaces ifs = new RdmaInterfaces(sys, n -> List.of());
        assertThatThrownBy(() -> DisniProvider.bindAddress(DisniConfig.defaults(), List.of("mlx5_0"), ifs))
                .isInstanceOf(ProviderUnavailableException.class).hasMessageContaining("reactor.rdma.disni.address")
                .hasMessageContaining("ibdev2netdev");
        assertThatThrownBy(() -> DisniProvider.bindAddress(DisniConfig.defaults().withAddress("::1"), List.of("mlx5_0"), ifs))
                .isInstanceOf(ProviderUnavailableException.class).hasMessageContaining("not IPv4");
        assertThat(DisniProvider.bindAddress(DisniConfig.defaults().withAddress("192.0.2.5"), List.of("mlx5_0"), ifs))
                .isEqualTo(InetAddress.getByName("192.0.2.5"));
    }
}
