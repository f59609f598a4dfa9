/**
 * The hardware provider: RoCE and InfiniBand through DiSNI 2.1 ({@code com.ibm.disni}), which
 * needs the native libdisni, an RDMA device, {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}
 * and a locked-memory limit large enough for registration (docs/HARDWARE.md).
 *
 * <p>Layout: {@link io.reactorrdma.verbs.disni.DisniProviderFactory} registers the provider
 * ({@code META-INF/services}), {@link io.reactorrdma.verbs.disni.DisniEnvironment} checks those needs
 * without loading DiSNI and {@link io.reactorrdma.verbs.disni.DisniProvider} opens the provider — the
 * only classes the rest of the library touches, none using a DiSNI type, so the soft path never loads a DiSNI class.
 * The native seam: {@code DisniContext}, {@code DisniProtectionDomain}, {@code DisniMemoryRegion},
 * {@code DisniCompletionQueue}, {@code DisniQueuePair}, and for rdma_cm {@code DisniConnector},
 * {@code DisniListener}, {@code DisniConnectionRequest}, {@code DisniConnection}.
 *
 * <p>Below it, unit-tested without the native library and knowing nothing of this package:
 * {@code verbs.disni.calls} (the cached DiSNI post and notify calls, {@code SVCPostSend}/{@code SVCPostRecv}
 * per batch shape patched through DiSNI's setters, and {@code DisniCodes}: access flags, opcodes,
 * statuses, immediate byte order); {@code verbs.disni.work} ({@code IbvWC} → {@code WorkCompletion}
 * through the wr_id tokens and posted-work records of {@code verbs.work.tracking}, which the FFM
 * provider shares); {@code verbs.disni.cm}
 * (the one thread DiSNI's event channel allows, the routing of its events, and the private-data
 * side channel stock libdisni cannot carry).
 */
package io.reactorrdma.verbs.disni;
