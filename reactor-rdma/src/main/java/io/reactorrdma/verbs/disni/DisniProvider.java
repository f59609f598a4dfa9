package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsContext;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Opens the disni provider. This class and everything it touches before {@link DisniContext}
 * use no DiSNI type, so a JVM that never chooses disni never loads a DiSNI class (and needs no
 * {@code --add-exports}); {@link DisniProviderFactory} calls only this class.
 */
public final class DisniProvider {

    private DisniProvider() {
    }

    /**
     * Opens the provider, or throws {@link ProviderUnavailableException} listing what is missing
     * (library, device, JVM exports, memlock, address) and how to fix each.
     */
    public static VerbsContext open(DisniEnvironment environment, DisniConfig config) {
        DisniProbe probe = environment.probe();
        probe.requireUsable();
        RdmaInterfaces interfaces = RdmaInterfaces.system(environment.devicesDir());
        InetAddress address = bindAddress(config, probe.devices(), interfaces);
        String device = interfaces.deviceOf(probe.devices(), address);
        return DisniContext.open(config, address, device != null ? device : String.join(",", probe.devices()));
    }

    /** The address whose device the context opens: the configured one, else the first RDMA interface's IPv4. */
    static InetAddress bindAddress(DisniConfig config, List<String> devices, RdmaInterfaces interfaces) {
        if (config.address() != null && !config.address().isBlank()) {
            InetAddress a;
            try {
                a = InetAddress.getByName(config.address().trim());
            } catch (UnknownHostException e) {
                throw new ProviderUnavailableException("reactor.rdma.disni.address=" + config.address()
                        + " does not resolve; give the IPv4 address of an RDMA interface (see `ibdev2netdev` or `rdma link`)", e);
            }
            if (!(a instanceof Inet4Address)) {
                throw new ProviderUnavailableException("reactor.rdma.disni.address=" + config.address() + " is not IPv4; "
                        + "DiSNI 2.1 builds only sockaddr_in, so give the IPv4 address of an RDMA interface");
            }
            return a;
        }
        InetAddress a = interfaces.firstIpv4(devices);
        if (a == null) {
            throw new ProviderUnavailableException("no IPv4 address on the network interfaces of RDMA devices " + devices
                    + " (rdma_cm finds a device only through an IP address of its interface): assign one to the RoCE "
                    + "netdev or IPoIB interface (`ibdev2netdev` shows which), or set -Dreactor.rdma.disni.address=<IPv4>");
        }
        return a;
    }
}
