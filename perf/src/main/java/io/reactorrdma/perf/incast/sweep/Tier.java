package io.reactorrdma.perf.incast.sweep;

import java.util.List;

/**
 * Where a port sits, for the PFC figures: the tier of the port that transmits and is paused. Host NICs are paused by
 * their ToR; a ToR's uplinks by a spine; a spine's ports by a ToR; a ToR's downlinks never (hosts send no PFC), but
 * they are counted so that the tiers add up to the whole fabric. On one big switch, its ports count as ToR downlinks.
 */
public enum Tier {
    /** A host's NIC port. */
    NIC("nic"),
    /** A ToR port towards a host (one big switch: every switch port). */
    TOR_DOWN("tor_down"),
    /** A ToR port towards a spine. */
    TOR_UP("tor_up"),
    /** A spine port (towards a ToR). */
    SPINE("spine");

    /** Every tier, in the order of the result arrays and the CSV columns. */
    public static final List<Tier> ALL = List.of(values());

    private final String id;

    Tier(String id) {
        this.id = id;
    }

    /** The name in CSV columns ({@code xoff_nic}) and the table. */
    public String id() {
        return id;
    }
}
