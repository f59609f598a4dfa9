package io.reactorrdma.incast.topology;

/**
 * Where a port sits in the fabric, named by what it transmits to; a PFC pause stops a port of one of these tiers. A
 * host's NIC is paused by its ToR; a ToR's downlink (towards a host) never is, because hosts send no PFC; a ToR's
 * uplink is paused by a spine; a spine's port (towards a ToR) by that ToR. On {@link OneBigSwitch} the switch's ports
 * face hosts, so they are {@link #TOR_DOWNLINK}.
 */
public enum Tier {
    /** A host's NIC port, transmitting to its ToR. */
    HOST_NIC,
    /** A ToR's port towards one of its hosts. */
    TOR_DOWNLINK,
    /** A ToR's port towards a spine. */
    TOR_UPLINK,
    /** A spine's port towards a ToR. */
    SPINE
}
