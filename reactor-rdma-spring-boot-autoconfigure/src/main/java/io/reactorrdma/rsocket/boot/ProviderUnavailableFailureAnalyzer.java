package io.reactorrdma.rsocket.boot;

import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.provider.ProviderProbe;
import io.reactorrdma.verbs.provider.Providers;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import java.util.Map;

/**
 * Startup advice when the configured RDMA provider cannot be used on this host (no RDMA device, no
 * libdisni, an shm directory that cannot be used...): the provider's reason and what each installed provider's probe found.
 */
public class ProviderUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<ProviderUnavailableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ProviderUnavailableException cause) {
        String description = "The RDMA provider (reactor.rdma.provider) cannot be used here: "
                + RdmaResourcesFactory.inBootTerms(cause).getMessage()
                + System.lineSeparator() + "Provider probes: " + probe();
        String action = "Install and configure the RDMA hardware (rdma-core and your NIC's RDMA driver) and libdisni, "
                + "as the disni probe above says, or set reactor.rdma.provider=shm "
                + "(software RDMA between processes on this host) or auto (hardware where present, else shm); "
                + "set reactor.rdma.enabled=false to switch the RDMA auto-configuration off.";
        return new FailureAnalysis(description, action, cause);
    }

    private static String probe() {
        try {
            StringBuilder found = new StringBuilder();
            for (Map.Entry<String, ProviderProbe> p : Providers.probes().entrySet()) {
                found.append(found.length() == 0 ? "" : "; ").append(p.getKey()).append(": ").append(p.getValue().summary());
            }
            return found.toString();
        } catch (RuntimeException | LinkageError e) {
            return "not available (" + e + ")";
        }
    }
}
