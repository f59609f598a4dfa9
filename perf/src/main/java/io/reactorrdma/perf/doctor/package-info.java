/**
 * {@code java -jar reactor-rdma-perf.jar doctor}: checks an RDMA host for the verbs providers and says what to fix,
 * one line per check. {@link io.reactorrdma.perf.doctor.DoctorCommand} reads the options, the checks
 * ({@link io.reactorrdma.perf.doctor.Checks}) read the host's files through {@link io.reactorrdma.perf.doctor.HostPaths}
 * (sysfs, /dev, /proc, the library directories) and {@link io.reactorrdma.perf.doctor.JvmFacts}, each returning
 * {@link io.reactorrdma.perf.doctor.Finding}s; {@link io.reactorrdma.perf.doctor.Verdict} decides which provider can run
 * and {@link io.reactorrdma.perf.doctor.Report} prints it all. Nothing here loads a native library or opens a provider:
 * the doctor reads files only, so it runs on any host and, with {@code --root}, on a fake tree.
 */
package io.reactorrdma.perf.doctor;
