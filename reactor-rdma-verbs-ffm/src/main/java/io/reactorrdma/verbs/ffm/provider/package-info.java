/**
 * The verbs provider {@code ffm}: the SPI over rdma-core through FFM, registered for
 * {@code Providers} by {@link io.reactorrdma.verbs.ffm.provider.FfmRegistration} (compiled for Java 17, so an older JVM
 * hears what ffm needs) and opened by {@link io.reactorrdma.verbs.ffm.provider.FfmProviderFactory} ({@code auto} prefers it
 * on JDK 22+ where rdma-core sees a device). {@link io.reactorrdma.verbs.ffm.provider.FfmContext} opens the device of an RDMA
 * interface's address through a CM id and reports its limits from {@code ibv_query_device} / {@code ibv_query_port};
 * {@link io.reactorrdma.verbs.ffm.provider.FfmQueuePair} posts by patching work-request chains built once in native
 * memory (inline sends, solicited events, READ, WRITE_WITH_IMM); {@link io.reactorrdma.verbs.ffm.provider.FfmCompletionQueue}
 * polls and decodes completions through the bookkeeping shared with the DiSNI provider
 * ({@code io.reactorrdma.verbs.work.tracking}), and lets an I/O thread wait on its channel and an eventfd. The
 * connection manager ({@link io.reactorrdma.verbs.ffm.provider.FfmListener},
 * {@link io.reactorrdma.verbs.ffm.provider.FfmConnectionRequest}, {@link io.reactorrdma.verbs.ffm.provider.FfmConnector},
 * {@link io.reactorrdma.verbs.ffm.provider.FfmConnection}) carries private data in rdma_cm itself, and its events arrive
 * on one thread per context that blocks on the event channel's descriptor ({@link io.reactorrdma.verbs.ffm.provider.FfmCmLoop}).
 * Settings: {@link io.reactorrdma.verbs.ffm.provider.FfmSettings}.
 */
package io.reactorrdma.verbs.ffm.provider;
