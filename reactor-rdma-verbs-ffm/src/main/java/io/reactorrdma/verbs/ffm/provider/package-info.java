/**
 * The verbs SPI over rdma-core through FFM, being built: today its completion queue
 * ({@link io.reactorrdma.verbs.ffm.provider.FfmCompletionQueue}: polled into the SPI's work completions, and an I/O
 * thread's wait on the completion channel and an eventfd, which {@code wakeup()} ends at once) and its protection
 * domain with memory regions. Not registered as a provider yet: queue pairs, the connection manager and the context
 * come next, then the conformance suite on the emulated rdma-core.
 */
package io.reactorrdma.verbs.ffm.provider;
