/**
 * The verbs SPI: a narrow Java interface over the Reliable Connection subset of libibverbs and
 * librdmacm, named after the verbs so that every piece maps onto its C counterpart (see
 * {@code docs/VERBS.md} for the table).
 *
 * <p>Object model, as in libibverbs: a {@link io.reactorrdma.verbs.VerbsContext} (an opened device
 * plus its connection manager) creates {@link io.reactorrdma.verbs.ProtectionDomain}s,
 * {@link io.reactorrdma.verbs.CompletionQueue}s and RC {@link io.reactorrdma.verbs.QueuePair}s;
 * memory is allocated <em>by the provider</em> together with its {@link io.reactorrdma.verbs.MemoryRegion}
 * ({@link io.reactorrdma.verbs.ProtectionDomain#allocate(int, int)}), so the shared-memory provider
 * can back regions with files that peers map, and the allocator registers once per block.
 *
 * <p>Hot-path rules: {@link io.reactorrdma.verbs.QueuePair#postSend} and
 * {@link io.reactorrdma.verbs.QueuePair#postRecv} take a batch and are one call (the doorbell);
 * work requests and completions ({@code verbs.work}) are reusable objects owned by the caller; posting and polling
 * allocate nothing in steady state. A queue pair's post calls must come from one thread at a time
 * (the engine's I/O thread), as must a completion queue's poll calls.
 *
 * <p>Providers are opened by name through {@link io.reactorrdma.verbs.provider.Providers}. Each
 * registers itself with a {@link io.reactorrdma.verbs.provider.VerbsProviderFactory} in
 * {@code META-INF/services}, so the SPI names no provider.
 *
 * <p>This package holds the resources and their errors; {@code io.reactorrdma.verbs.work} holds
 * what is posted and polled (work requests, scatter/gather lists, completions, opcodes), and
 * {@code io.reactorrdma.verbs.provider} the provider selection and its {@code ServiceLoader} plumbing.
 */
package io.reactorrdma.verbs;
