package io.reactorrdma.rsocket;

/** RSocket's TransportTest over the {@code shm} fabric: resumable (connections dropped at random, RSocket resumes). */
class RdmaShmResumableTransportTest extends RdmaTransportTestSupport {
    RdmaShmResumableTransportTest() {
        super("shm", false, true, true);
    }
}
