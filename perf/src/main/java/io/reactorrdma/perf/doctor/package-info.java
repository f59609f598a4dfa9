/**
 * {@code java -jar reactor-rdma-perf.jar doctor}: checks an RDMA host for the verbs providers and says what to fix,
 * one line per check. {@link io.reactorrdma.perf.doctor.DoctorCommand} reads the options and runs the checks of
 * {@code doctor.checks}, which read the host through {@code doctor.host}; {@link io.reactorrdma.perf.doctor.Verdict}
 * decides which provider can run and {@link io.reactorrdma.perf.doctor.Report} prints it all. Nothing here loads a
 * native library or opens a provider: the doctor reads files only, so it runs on any host and, with {@code --root}, on
 * a fake tree.
 */
package io.reactorrdma.perf.doctor;
