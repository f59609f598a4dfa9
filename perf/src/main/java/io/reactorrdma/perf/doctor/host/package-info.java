/**
 * What the doctor reads of a host, through {@link io.reactorrdma.perf.doctor.host.HostPaths} (every path under an
 * optional {@code --root}): RDMA ports and their GIDs from sysfs, library directories, mounts, the memlock limit, the
 * JVM, and what the default pools need. Files only: no native library is loaded.
 */
package io.reactorrdma.perf.doctor.host;
