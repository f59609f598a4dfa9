/**
 * The hardware provider's bookkeeping of posted work: the wr_id tokens it hands DiSNI
 * ({@link io.reactorrdma.verbs.disni.work.WrTokens}), what each queue pair has outstanding
 * ({@link io.reactorrdma.verbs.disni.work.PostedWork}, {@link io.reactorrdma.verbs.disni.work.QpRecord},
 * {@link io.reactorrdma.verbs.disni.work.QpTable}), and the translation of a polled {@code IbvWC}
 * into the SPI's {@code WorkCompletion} ({@link io.reactorrdma.verbs.disni.work.CompletionMapper}).
 *
 * <p>Internal to the DiSNI provider: public only so that {@code io.reactorrdma.verbs.disni} can use
 * it; no API. Unit-tested without the native library.
 */
package io.reactorrdma.verbs.disni.work;
