/**
 * The RDMA engine (paper §5.3–§6; docs/ARCHITECTURE.md): from logical sockets to RC queue pairs.
 *
 * <ul>
 *   <li>{@link io.reactorrdma.engine.ThreadDomain} — one I/O thread, its completion queue, the
 *       engines it drives; other threads hand work over through a queue; idle strategies
 *       busy-spin, back-off and block-on-notification.</li>
 *   <li>{@link io.reactorrdma.engine.Engine} — one RC queue pair: the
 *       {@link io.reactorrdma.engine.WorkRequestChain} (one doorbell and one signaled request per
 *       batch), receive buffers reposted d/8 at a time behind the doorbell, receive credits with a reserved control
 *       credit, eager SENDs and rendezvous WRITEs, the send window, and the sockets multiplexed on
 *       it, served round-robin one fragment per turn. Small messages are copied out of their receive
 *       buffers into a {@link io.reactorrdma.engine.CopyOutBuffer}, made ready behind the doorbell.</li>
 *   <li>{@link io.reactorrdma.engine.Rendezvous} — the WRITE rendezvous state machine, both
 *       directions (requests, answers, refusals, abandons, revocations, the destination bound);
 *       {@link io.reactorrdma.engine.Pull} — the pull rendezvous (the receiver READs a message
 *       named by the sender out of the sender's per-engine readable pool, delivers in socket
 *       order, releases the source in a batched notice), on when both sides offer it.</li>
 *   <li>{@link io.reactorrdma.engine.EngineSocket} — one logical connection, with per-socket
 *       message allowance so a slow consumer stops its sender.</li>
 *   <li>The wire protocol: {@link io.reactorrdma.engine.WireHeader} and
 *       {@link io.reactorrdma.engine.ConnectionParameters} (byte layouts), {@code docs/PROTOCOL.md}.</li>
 *   <li>Tunables: {@link io.reactorrdma.config.EngineConfig}; meters:
 *       {@link io.reactorrdma.engine.EngineMetrics}.</li>
 * </ul>
 */
package io.reactorrdma.engine;
