/**
 * The floors that bound what any transport on this host can reach: {@code shm-floor} (two processes ping-ponging a
 * counter in a mapped file under /dev/shm, {@link io.reactorrdma.perf.floor.ShmFloorClient} and
 * {@link io.reactorrdma.perf.floor.ShmFloorServer}) for send-lat, and {@code memcpy} (one thread copying direct buffers,
 * {@link io.reactorrdma.perf.floor.MemcpyBench}) for write-bw.
 */
package io.reactorrdma.perf.floor;
