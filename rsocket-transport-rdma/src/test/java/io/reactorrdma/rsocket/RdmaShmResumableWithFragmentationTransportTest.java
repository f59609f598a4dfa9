package io.reactorrdma.rsocket;

/** RSocket's TransportTest over the {@code shm} fabric: resumable with random fragmentation. */
class RdmaShmResumableWithFragmentationTransportTest extends RdmaTransportTestSupport {
    RdmaShmResumableWithFragmentationTransportTest() {
        super("shm", true, true, true);
    }
}
