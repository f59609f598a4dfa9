/**
 * The doctor's checks, one class each ({@link io.reactorrdma.perf.doctor.checks.Checks} lists them): devices, ports and
 * GIDs, device files, rdma-core, the JDK, libdisni, memlock, /dev/shm, RoCE QoS. Each returns
 * {@link io.reactorrdma.perf.doctor.checks.Finding}s (OK, WARN, FAIL, with the fix and the providers a FAIL blocks).
 */
package io.reactorrdma.perf.doctor.checks;
