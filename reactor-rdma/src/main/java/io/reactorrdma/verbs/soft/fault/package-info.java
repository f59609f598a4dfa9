/**
 * Fault injection for the soft provider, set by tests on a context
 * ({@link io.reactorrdma.verbs.soft.fault.SoftFaults}, passed to {@code SoftContext.openShm} or
 * {@code openLoopback}): completions delayed or dropped
 * ({@link io.reactorrdma.verbs.soft.fault.CompletionFault}), READ completions held back as an RNIC
 * holds them until the response arrives ({@link io.reactorrdma.verbs.soft.fault.ReadCompletionFault}),
 * a peer frozen before a copy ({@link io.reactorrdma.verbs.soft.fault.PeerFreeze}), and limits on
 * registrations.
 *
 * <p>Some methods are the provider's hooks (called by its queue pairs and completion
 * queues), public only because they live in this package; a context opened without faults uses
 * {@link io.reactorrdma.verbs.soft.fault.SoftFaults#none()} and none of this runs.
 */
package io.reactorrdma.verbs.soft.fault;
