/**
 * The hardware providers' bookkeeping of posted work, shared by the DiSNI and the FFM provider: the
 * wr_id tokens they hand the NIC ({@link io.reactorrdma.verbs.work.tracking.WrTokens}), what each
 * queue pair has outstanding ({@link io.reactorrdma.verbs.work.tracking.PostedWork},
 * {@link io.reactorrdma.verbs.work.tracking.QpRecord}, {@link io.reactorrdma.verbs.work.tracking.QpTable}),
 * and the translation of a polled {@code ibv_wc} into the SPI's {@code WorkCompletion}
 * ({@link io.reactorrdma.verbs.work.tracking.CompletionDecoder}, {@link io.reactorrdma.verbs.work.tracking.WcStatusText}).
 *
 * <p>For providers, not applications: no API. It names no provider and no native type, so it is
 * unit-tested without a native library; the posting and the polling thread may differ, and neither
 * locks nor allocates here.
 */
package io.reactorrdma.verbs.work.tracking;
