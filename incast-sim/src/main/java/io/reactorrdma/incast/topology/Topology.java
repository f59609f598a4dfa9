package io.reactorrdma.incast.topology;

/**
 * Which ports exist and how they connect. A port is one side of a link; it transmits towards {@link #peer(int)}.
 * Host ports are numbered {@code 0 .. hosts-1} (port {@code h} is host {@code h}'s NIC); switch ports follow.
 * {@link OneBigSwitch} is the validation fabric; {@link LeafSpine} has ToRs, spines and ECMP in {@link #egress}.
 */
public interface Topology {

    /** Hosts, each with one NIC port. */
    int hosts();

    /** All ports, host and switch. */
    int ports();

    /** Switches. */
    int switches();

    /** The port at the other end of {@code port}'s link. */
    int peer(int port);

    /** The switch owning {@code port}, or -1 for a host's port. */
    int switchOf(int port);

    /** The first port of switch {@code sw}; its ports are contiguous. */
    int firstPort(int sw);

    /** How many ports switch {@code sw} has. */
    int portCount(int sw);

    /** The port of switch {@code sw} on which a packet for host {@code dstHost} leaves; {@code flow} is for ECMP. */
    int egress(int sw, int dstHost, int flow);

    /** Where {@code port} sits; by default a host's NIC or a switch port facing a host. */
    default Tier tier(int port) {
        return switchOf(port) < 0 ? Tier.HOST_NIC : Tier.TOR_DOWNLINK;
    }

    /**
     * The rate of {@code port}'s link in bits per second; both ends of a link must agree. By default every link runs at
     * {@link IncastConfig#linkBitsPerSecond()}.
     */
    default long linkBitsPerSecond(int port, IncastConfig config) {
        return config.linkBitsPerSecond();
    }

    /** Switch {@code sw}'s shared buffer in bytes; by default {@link IncastConfig#switchBufferBytes()}. */
    default long switchBufferBytes(int sw, IncastConfig config) {
        return config.switchBufferBytes();
    }
}
