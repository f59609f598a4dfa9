/**
 * The DiSNI provider's reading of polled completions: {@link io.reactorrdma.verbs.disni.work.CompletionMapper}
 * turns an {@code IbvWC} into the SPI's {@code WorkCompletion} through the bookkeeping shared with the other
 * hardware provider ({@code io.reactorrdma.verbs.work.tracking}).
 *
 * <p>Internal to the DiSNI provider: public only so that {@code io.reactorrdma.verbs.disni} can use
 * it; no API. Unit-tested without the native library.
 */
package io.reactorrdma.verbs.disni.work;
