package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.VerbsConstants;

/**
 * What {@code ibv_query_port} reports of one port.
 *
 * @param port           its number, from 1
 * @param state          {@code enum ibv_port_state} ({@link VerbsConstants#IBV_PORT_ACTIVE} when it carries traffic)
 * @param activeMtu      {@code enum ibv_mtu} of the link now
 * @param gidTableLength entries of its GID table
 * @param linkLayer      {@link VerbsConstants#IBV_LINK_LAYER_ETHERNET} (RoCE) or {@link VerbsConstants#IBV_LINK_LAYER_INFINIBAND}
 */
public record PortAttributes(int port, int state, int activeMtu, int gidTableLength, int linkLayer) {

    /** Whether the port carries traffic. */
    public boolean isActive() {
        return state == VerbsConstants.IBV_PORT_ACTIVE;
    }

    /** Whether it is RoCE (an Ethernet link layer); otherwise InfiniBand. */
    public boolean isRoce() {
        return linkLayer == VerbsConstants.IBV_LINK_LAYER_ETHERNET;
    }

    /** The active MTU in bytes (256 for {@code IBV_MTU_256} ... 4096 for {@code IBV_MTU_4096}), 0 if unknown. */
    public int activeMtuBytes() {
        return activeMtu >= VerbsConstants.IBV_MTU_256 && activeMtu <= VerbsConstants.IBV_MTU_4096 ? 128 << activeMtu : 0;
    }
}
