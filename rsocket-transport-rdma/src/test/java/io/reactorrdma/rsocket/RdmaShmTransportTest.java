package io.reactorrdma.rsocket;

/** RSocket's TransportTest over the {@code shm} fabric: plain. */
class RdmaShmTransportTest extends RdmaTransportTestSupport {
    RdmaShmTransportTest() {
        super("shm", false, false, true);
    }
}
