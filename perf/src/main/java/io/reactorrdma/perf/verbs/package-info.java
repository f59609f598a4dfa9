/**
 * The scenarios on the verbs SPI: {@code send-lat} (SEND/RECV ping-pong, {@link io.reactorrdma.perf.verbs.SendLatClient}
 * and {@link io.reactorrdma.perf.verbs.SendLatServer}) and {@code write-bw} (a window of RDMA WRITEs,
 * {@link io.reactorrdma.perf.verbs.WriteBwClient} and {@link io.reactorrdma.perf.verbs.WriteBwServer}), with the queue
 * pair set-up and completion waiting they share.
 */
package io.reactorrdma.perf.verbs;
