package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.verbs.VerbsConformanceSuite;
import io.reactorrdma.verbs.VerbsContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The conformance suite on RDMA hardware through DiSNI. Runs only where libdisni loads, an RDMA
 * device exists, {@code sun.nio.ch} is exported and memlock suffices; otherwise every test is
 * skipped with the probe's diagnosis. Both contexts open the device of the RDMA interface given by
 * {@code -Dreactor.rdma.disni.address=<IPv4>} (default: the first IPv4 address of the first RDMA
 * device's interface), and the listener binds there. Run it with {@code mvn -Pdisni} (docs/HARDWARE.md).
 */
class DisniConformanceTest extends VerbsConformanceSuite {

    private static InetAddress address;

    @BeforeAll
    static void requireHardware() {
        DisniProbe probe = DisniEnvironment.system().probe();
        Assumptions.assumeTrue(probe.problems().isEmpty(), () -> {
            String why = "DisniConformanceTest skipped: " + String.join(" | ", probe.problems());
            System.out.println(why);
            return why;
        });
        address = DisniProvider.bindAddress(DisniConfig.fromSystemProperties(), probe.devices(),
                RdmaInterfaces.system(DisniEnvironment.SYSFS_INFINIBAND));
        System.out.println("DisniConformanceTest on " + address.getHostAddress() + ", devices " + probe.devices());
    }

    @Override
    protected VerbsContext openContext() {
        return DisniProvider.open(DisniEnvironment.system(), DisniConfig.fromSystemProperties().withAddress(address.getHostAddress()));
    }

    @Override
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress(address, 0);
    }

    /** Closing the context destroys its ids, as the kernel does for a killed process (which sends a DREQ). */
    @Override
    protected void vanish(VerbsContext context) {
        context.close();
    }

    @Override
    protected Duration peerDeathBound() {
        return Duration.ofSeconds(30);
    }

    @Override
    protected String vanishedPeerRulesDifferBecause() {
        return "on hardware a peer whose process dies has its rdma_cm ids destroyed by the kernel, which sends a DREQ, "
                + "so outstanding work is flushed (WR_FLUSH_ERR) after DISCONNECTED instead of failing with RETRY_EXC_ERR; "
                + "a vanished host is noticed only by the next request (RETRY_EXC_ERR after retry_count x ACK timeout) "
                + "or the engine's heartbeats, as rdma_cm has no keep-alive";
    }
}
