package io.reactorrdma.rsocket;

/** RSocket's TransportTest over the {@code shm} fabric: with random fragmentation (256–511 B). */
class RdmaShmFragmentationTransportTest extends RdmaTransportTestSupport {
    RdmaShmFragmentationTransportTest() {
        super("shm", true, false, false);
    }
}
