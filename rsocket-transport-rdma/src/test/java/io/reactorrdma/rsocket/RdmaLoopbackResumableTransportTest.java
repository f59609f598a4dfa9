package io.reactorrdma.rsocket;

/** RSocket's TransportTest over the {@code loopback} fabric: resumable (connections dropped at random, RSocket resumes). */
class RdmaLoopbackResumableTransportTest extends RdmaTransportTestSupport {
    RdmaLoopbackResumableTransportTest() {
        super("loopback", false, true, false);
    }
}
