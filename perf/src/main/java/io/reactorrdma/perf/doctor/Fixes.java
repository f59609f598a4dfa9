package io.reactorrdma.perf.doctor;

import java.util.EnumSet;
import java.util.Set;

/** What the report tells users to do where several checks say the same; and the providers that need RDMA hardware. */
final class Fixes {

    /** The providers that drive an RDMA device (ffm: planned). */
    static final Set<Provider> HARDWARE = EnumSet.of(Provider.DISNI, Provider.FFM);

    /** rdma-core's user-space libraries, drivers and tools. */
    static final String INSTALL_RDMA_CORE = "sudo apt-get install rdma-core ibverbs-providers libibverbs1 librdmacm1 ibverbs-utils"
            + " (Debian/Ubuntu) or sudo dnf install rdma-core libibverbs librdmacm libibverbs-utils (RHEL/Fedora)";

    /** How to pick the soft provider on purpose. */
    static final String USE_SHM = "reactor.rdma.provider=shm (Spring Boot property, or -Dreactor.rdma.provider=shm)";

    private Fixes() {
    }
}
