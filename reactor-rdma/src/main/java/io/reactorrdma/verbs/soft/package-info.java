/**
 * The soft provider: a software RNIC with the semantics of a real one, for machines without RDMA
 * hardware and for every test.
 *
 * <p>Two fabrics share all of the verbs logic ({@link io.reactorrdma.verbs.soft.SoftQueuePair},
 * {@link io.reactorrdma.verbs.soft.SoftCompletionQueue}) and differ only in a
 * {@link io.reactorrdma.verbs.soft.SoftFabric}:
 * <ul>
 *   <li>{@code loopback} — peers are contexts in one JVM; memory is direct buffers.</li>
 *   <li>{@code shm} — peers are processes on one host; regions, queue pairs and completion queues
 *       are memory-mapped files in a per-user directory under /dev/shm, connection setup and
 *       liveness go over a UNIX-domain socket named after the port.</li>
 * </ul>
 *
 * <p>How work runs: the thread that posts runs the request at once, as a NIC would on the
 * doorbell — checks it, copies the data straight into the peer's memory (one copy, like DMA) and
 * writes the completion where the peer polls it. A SEND claims the peer's next posted receive in
 * the peer's receive queue; when there is none, the request waits and the provider thread retries
 * after the RNR delay. Byte layouts of everything shared are in {@link io.reactorrdma.verbs.soft.shared.QpLayout},
 * {@link io.reactorrdma.verbs.soft.shared.CqLayout} and {@link io.reactorrdma.verbs.soft.shared.RegionTableLayout};
 * every tunable is in {@link io.reactorrdma.config.SoftConfig}, the fixed limits in
 * {@link io.reactorrdma.verbs.soft.SoftLimits}; {@link io.reactorrdma.verbs.soft.SoftProviderFactory}
 * registers the provider.
 *
 * <p>Below this package: {@code verbs.soft.shared} holds what lives in shared memory (the mapped
 * files, their byte layouts, region keys, the per-user directory, the wake socket) and knows
 * nothing of queue pairs; {@code verbs.soft.fault} holds the fault switches tests set on a context.
 *
 * <p>Wake-ups: a poller arms its completion queue ({@code requestNotification}: a flag in the queue
 * and one in the shared header of every queue pair it receives for, 1 for every completion, 2 for
 * solicited receives and errors only), polls once more, then blocks. Whoever runs a send queue
 * notes what the completions it publishes raise and, once at the end of the run (the doorbell: a
 * post, or a retry after an RNR delay), fences, reads the flag and, if the run's completions raise
 * that arm and it can CAS it to 0, wakes the poller — one wake-up per run however large the batch,
 * none for a poller that is not armed (full fences on both sides: each side's store is visible
 * before it reads the other's, so one of them always sees the other — see
 * {@code SharedMemory.fullFence}). In one JVM
 * the wake-up is an {@code unpark}. Across processes it is one byte on a UNIX-domain connection to
 * the {@link io.reactorrdma.verbs.soft.shared.WakeSocket} of the poller's completion queue
 * ({@code <context>.cq<n>.wake}; the queue pair header's {@code wakeCq} names it, and each link
 * connects to it once, at connect): the blocked poller itself waits in a {@code Selector} over those
 * connections, so the kernel wakes it directly — one context switch per direction, as epoll is for
 * TCP. In-process notifications reach that poller through {@code Selector.wakeup}; the provider
 * thread only accepts the connections. The byte carries no state: the handshake is the shared
 * flag, so a byte drained late costs one empty turn, never a lost wake-up; a poller that never
 * blocks drains without waiting every {@code WakeSocket.DEFAULT_REAP_INTERVAL_POLLS} polls, before
 * it scans, which also closes the connections of peers that left. A queue without a wake
 * socket (its path too long for a socket address) is woken as before: a byte on the link's control
 * socket, read by the provider thread, which then unparks the poller (two context switches).
 *
 * <p>Trust: what a peer wrote into shared memory is checked before it is believed — sequence
 * numbers against our own counters, lengths against what we posted, keys and ranges against the
 * owner's region table — and a bad value fails that queue pair with a message saying what was
 * wrong. Java buffers are bounds-checked, so no value can make us touch memory outside a mapping.
 * Out of scope: a same-user process that truncates our files (it could as well ptrace us).
 */
package io.reactorrdma.verbs.soft;
