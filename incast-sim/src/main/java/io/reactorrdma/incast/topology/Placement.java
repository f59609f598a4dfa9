package io.reactorrdma.incast.topology;

/**
 * How {@link LeafSpine#place} lays parameter servers and trainers onto hosts. Both walk a fixed order of hosts and
 * give the servers the first places and the trainers the next ones.
 */
public enum Placement {
    /**
     * Slot by slot across the ToRs: ToR 0 slot 0, ToR 1 slot 0, …, ToR 0 slot 1, … — servers spread evenly over the
     * ToRs (124 over 20 ToRs: 6 or 7 each), and so are the trainers after them.
     */
    SPREAD,
    /** In host number order (ToR by ToR): the servers fill the first ToRs (124: ToRs 0–4 and 4 hosts of ToR 5). */
    CLUSTERED
}
