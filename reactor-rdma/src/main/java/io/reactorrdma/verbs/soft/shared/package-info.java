/**
 * What the soft provider keeps in shared memory, below its verbs logic: the memory-mapped files and
 * the acquire/release accessors over them ({@link io.reactorrdma.verbs.soft.shared.SharedMemory}),
 * the byte layouts of a queue pair, a completion queue and a region table
 * ({@link io.reactorrdma.verbs.soft.shared.QpLayout}, {@link io.reactorrdma.verbs.soft.shared.CqLayout},
 * {@link io.reactorrdma.verbs.soft.shared.RegionTableLayout}), region keys
 * ({@link io.reactorrdma.verbs.soft.shared.RegionKeys}), the per-user directory under /dev/shm
 * ({@link io.reactorrdma.verbs.soft.shared.ShmDirectory}) and a completion queue's
 * {@link io.reactorrdma.verbs.soft.shared.WakeSocket}.
 *
 * <p>Internal to the soft provider: these types are public only so that {@code io.reactorrdma.verbs.soft}
 * can use them from its own package; they are no API and may change in any release. Nothing here
 * knows a queue pair, a context or a fabric.
 */
package io.reactorrdma.verbs.soft.shared;
