package io.reactorrdma.perf.doctor.checks;

import java.util.EnumSet;
import java.util.Set;

/** What the report tells users to do where several checks say the same; and the providers that need RDMA hardware. */
public final class Fixes {

    /** The providers that drive an RDMA device. */
    public static final Set<Provider> HARDWARE = EnumSet.of(Provider.DISNI, Provider.FFM);

    /** rdma-core's user-space libraries, drivers and tools. */
    public static final String INSTALL_RDMA_CORE = "sudo apt-get install rdma-core ibverbs-providers libibverbs1 librdmacm1 ibverbs-utils"
            + " (Debian/Ubuntu) or sudo dnf install rdma-core libibverbs librdmacm libibverbs-utils (RHEL/Fedora)";

    /** How to pick the soft provider on purpose. */
    public static final String USE_SHM = "reactor.rdma.provider=shm (Spring Boot property, or -Dreactor.rdma.provider=shm)";

    private Fixes() {
    }
}
