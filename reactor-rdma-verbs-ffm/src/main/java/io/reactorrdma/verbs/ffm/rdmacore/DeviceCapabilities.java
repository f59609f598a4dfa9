package io.reactorrdma.verbs.ffm.rdmacore;

/**
 * What {@code ibv_query_device} reports of a device, the limits the engine sizes itself by instead of guessing.
 *
 * @param device           the device's name ({@code mlx5_0})
 * @param firmware         its firmware version
 * @param maxMrSize        the largest memory region it registers, in bytes
 * @param maxQp            queue pairs it supports
 * @param maxQpWr          work requests one queue of a queue pair holds
 * @param maxSge           scatter/gather entries per work request
 * @param maxCqe           entries one completion queue holds
 * @param maxMr            memory regions it registers
 * @param maxQpRdAtom      RDMA READs (and atomics) a queue pair may have outstanding as the target
 * @param maxQpInitRdAtom  RDMA READs (and atomics) a queue pair may have outstanding as the initiator
 * @param ports            its physical ports, numbered from 1
 */
public record DeviceCapabilities(String device, String firmware, long maxMrSize, int maxQp, int maxQpWr, int maxSge,
                                 int maxCqe, int maxMr, int maxQpRdAtom, int maxQpInitRdAtom, int ports) {
}
