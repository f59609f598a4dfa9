package io.reactorrdma.perf.incast;

/**
 * Which ports exist and how they connect. A port is one side of a link; it transmits towards {@link #peer(int)}.
 * Host ports are numbered {@code 0 .. hosts-1} (port {@code h} is host {@code h}'s NIC); switch ports follow. The
 * seam for the ToR + spine tier: another implementation with more switches and an ECMP choice in {@link #egress}.
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
}
