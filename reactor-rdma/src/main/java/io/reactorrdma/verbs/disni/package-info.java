/**
 * The hardware provider: RoCE and InfiniBand through DiSNI 2.1 ({@code com.ibm.disni}), which
 * needs the native libdisni, an RDMA device, {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}
 * and a locked-memory limit large enough for registration (docs/HARDWARE.md).
 *
 * <p>Layout: {@link io.reactorrdma.verbs.disni.DisniProviderFactory} registers the provider
 * ({@code META-INF/services}), {@link io.reactorrdma.verbs.disni.DisniEnvironment} checks those needs
 * without loading DiSNI and {@link io.reactorrdma.verbs.disni.DisniProvider} opens the provider — the
 * only classes the rest of the library touches, none using a DiSNI type, so the soft path never loads a DiSNI class.
 * Pure translation, unit-tested without the native library: {@code DisniCodes} (access flags,
 * opcodes, statuses, immediate byte order), {@code WrTokens} and {@code PostedWork} (the provider's
 * wr_id and what each queue pair has outstanding), {@code CompletionMapper} ({@code IbvWC} →
 * {@code WorkCompletion}), {@code SendCallCache}/{@code RecvCallCache} (prebuilt
 * {@code SVCPostSend}/{@code SVCPostRecv} per batch shape, patched through DiSNI's setters) and
 * {@code SideChannel} (the private-data handshake stock libdisni cannot carry). The native seam:
 * {@code DisniContext}, {@code DisniProtectionDomain}, {@code DisniMemoryRegion},
 * {@code DisniCompletionQueue}, {@code DisniQueuePair}, and for rdma_cm {@code CmEventLoop}
 * (the one thread DiSNI's event channel allows), {@code DisniConnector}, {@code DisniListener},
 * {@code DisniConnectionRequest}, {@code DisniConnection}.
 */
package io.reactorrdma.verbs.disni;
