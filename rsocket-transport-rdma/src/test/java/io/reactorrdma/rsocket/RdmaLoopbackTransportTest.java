package io.reactorrdma.rsocket;

/** RSocket's TransportTest over the {@code loopback} fabric: plain. */
class RdmaLoopbackTransportTest extends RdmaTransportTestSupport {
    RdmaLoopbackTransportTest() {
        super("loopback", false, false, false);
    }
}
