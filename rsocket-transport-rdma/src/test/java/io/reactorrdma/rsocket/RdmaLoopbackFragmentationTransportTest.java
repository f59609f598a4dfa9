package io.reactorrdma.rsocket;

/** RSocket's TransportTest over the {@code loopback} fabric: with random fragmentation (256–511 B). */
class RdmaLoopbackFragmentationTransportTest extends RdmaTransportTestSupport {
    RdmaLoopbackFragmentationTransportTest() {
        super("loopback", true, false);
    }
}
