/**
 * The server end of a run as the client sees it ({@link io.reactorrdma.perf.measure.PeerSide}): a forked JVM
 * ({@link io.reactorrdma.perf.peer.ForkedPeer}, running {@code io.reactorrdma.perf.PeerMain}, with the stdin commands of
 * {@link io.reactorrdma.perf.peer.PeerCommands}), a thread of this JVM ({@link io.reactorrdma.perf.peer.InJvmPeer},
 * {@link io.reactorrdma.perf.peer.InJvmServer}) or a hand-started peer on another host
 * ({@link io.reactorrdma.perf.peer.RemotePeer}); the {@link io.reactorrdma.perf.peer.ServerTask} each runs and the
 * {@code KEY value} lines it reports. Child processes are killed with their parent.
 */
package io.reactorrdma.perf.peer;
