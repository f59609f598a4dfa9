package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.Topology;

/**
 * Per port: the link's serialization cost (picoseconds per byte), propagation delay and the PFC headroom its
 * ingress needs. The rate comes from {@link Topology#linkBitsPerSecond} (every link the config's rate unless the
 * topology says otherwise, as {@link io.reactorrdma.incast.topology.LeafSpine}'s 100 Gb/s uplinks do); the delay is the
 * config's for every link.
 * Headroom is the config's {@link IncastConfig#headroomBytes()} on a link of the config's rate and
 * {@link IncastConfig#headroomFor} of the link's own rate on any other (37,500 B = 3 × 100 Gb/s × 1 µs on an uplink).
 */
final class Links {

    private static final long PS_BITS_PER_SECOND = 8_000_000_000_000L;

    private final long[] psPerByte;
    private final long[] delayPs;
    private final long[] headroomBytes;

    Links(Topology topology, IncastConfig config) {
        int ports = topology.ports();
        psPerByte = new long[ports];
        delayPs = new long[ports];
        headroomBytes = new long[ports];
        int packet = config.mtuBytes() + config.headerBytes();
        for (int p = 0; p < ports; p++) {
            long rate = topology.linkBitsPerSecond(p, config);
            if (rate <= 0 || PS_BITS_PER_SECOND % rate != 0) {
                throw new IllegalArgumentException("port " + p + " (" + topology.tier(p) + "): link rate " + rate
                        + " b/s; 8e12 must be a multiple of it so a byte takes whole picoseconds (10, 25, 40, 100, "
                        + "200 or 400 Gb/s are)");
            }
            long peerRate = topology.linkBitsPerSecond(topology.peer(p), config);
            if (peerRate != rate) {
                throw new IllegalArgumentException("port " + p + " runs at " + rate + " b/s but its peer port "
                        + topology.peer(p) + " at " + peerRate + " b/s: both ends of a link need one rate");
            }
            psPerByte[p] = PS_BITS_PER_SECOND / rate;
            delayPs[p] = config.linkDelayPs();
            headroomBytes[p] = rate == config.linkBitsPerSecond() ? config.headroomBytes()
                    : IncastConfig.headroomFor(rate, config.linkDelayPs(), packet, config.pfcFrameBytes());
        }
    }

    /** Picoseconds to put {@code bytes} on {@code port}'s link: bytes × 8 / rate. */
    long serializationPs(int port, int bytes) {
        return bytes * psPerByte[port];
    }

    long delayPs(int port) {
        return delayPs[port];
    }

    /** PFC headroom for the ingress of {@code port}'s link, bytes. */
    long headroomBytes(int port) {
        return headroomBytes[port];
    }
}
