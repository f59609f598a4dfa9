package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.RdmaPorts;

import java.util.List;

/** Whether the kernel lists an RDMA device ({@code /sys/class/infiniband}), as {@code ibv_devices} would. */
public final class DevicesCheck implements Check {

    @Override
    public List<Finding> run(Host host) {
        List<String> devices = RdmaPorts.devices(host.paths());
        if (devices.isEmpty()) {
            boolean dir = host.paths().exists(RdmaPorts.CLASS_DIR);
            return List.of(Finding.fail("devices", "no RDMA device (" + RdmaPorts.CLASS_DIR + (dir ? " is empty" : " does not exist") + ")",
                    "load the NIC's RDMA driver (mlx5_ib, bnxt_re, irdma, ...; ibv_devices then lists it), or make a software RoCE"
                            + " device: sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev eth0; without RDMA hardware"
                            + " use shm (auto does)", Fixes.HARDWARE));
        }
        StringBuilder found = new StringBuilder();
        for (String device : devices) {
            int ports = RdmaPorts.portCount(host.paths(), device);
            found.append(found.length() == 0 ? "" : ", ").append(device).append(" (").append(ports)
                    .append(ports == 1 ? " port)" : " ports)");
        }
        return List.of(Finding.ok("devices", found.toString()));
    }
}
