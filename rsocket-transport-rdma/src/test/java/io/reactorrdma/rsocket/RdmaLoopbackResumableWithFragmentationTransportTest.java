package io.reactorrdma.rsocket;

/** RSocket's TransportTest over the {@code loopback} fabric: resumable with random fragmentation. */
class RdmaLoopbackResumableWithFragmentationTransportTest extends RdmaTransportTestSupport {
    RdmaLoopbackResumableWithFragmentationTransportTest() {
        super("loopback", true, true);
    }
}
