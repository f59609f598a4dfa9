package io.reactorrdma.perf.incast;

import java.util.Arrays;

/**
 * Per port: the link's serialization cost (picoseconds per byte) and propagation delay. All links take the config's
 * rate and delay in this step; the spine tier will give uplinks their own rate here.
 */
final class Links {

    private final long[] psPerByte;
    private final long[] delayPs;

    Links(Topology topology, IncastConfig config) {
        psPerByte = new long[topology.ports()];
        delayPs = new long[topology.ports()];
        Arrays.fill(psPerByte, config.psPerByte());
        Arrays.fill(delayPs, config.linkDelayPs());
    }

    /** Picoseconds to put {@code bytes} on {@code port}'s link: bytes × 8 / rate. */
    long serializationPs(int port, int bytes) {
        return bytes * psPerByte[port];
    }

    long delayPs(int port) {
        return delayPs[port];
    }
}
