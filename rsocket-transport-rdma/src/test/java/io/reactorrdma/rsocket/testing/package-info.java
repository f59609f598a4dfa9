/**
 * Helpers the tests of the fallback, shard, lease and fan-out packages share: a counting RSocket
 * server ({@link io.reactorrdma.rsocket.testing.CountingServer}), a duplex connection to extend by
 * overriding ({@link io.reactorrdma.rsocket.testing.ForwardingDuplexConnection}), and bounded waits
 * with the check that no registered buffer is left ({@link io.reactorrdma.rsocket.testing.LiveBufferWait}),
 * and a replica process to fork ({@link io.reactorrdma.rsocket.testing.ReplicaServerMain}). The module's
 * test jar (classifier {@code tests}) carries them to the Boot module's tests.
 */
package io.reactorrdma.rsocket.testing;
