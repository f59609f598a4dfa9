package io.reactorrdma.perf.incast;

/**
 * The hosts' NICs: each serves its flows (QPs) with something to send round-robin, one packet per turn, built when the
 * port is free to send (so a later rate limiter or send window decides per packet whether a flow is eligible).
 */
final class Nic {

    private final IntFifo[] active;
    private final Flows flows;
    private final Packets packets;
    private final int mtu;
    private final int header;

    Nic(int hosts, Flows flows, Packets packets, IncastConfig config) {
        active = new IntFifo[hosts];
        for (int h = 0; h < hosts; h++) {
            active[h] = new IntFifo();
        }
        this.flows = flows;
        this.packets = packets;
        this.mtu = config.mtuBytes();
        this.header = config.headerBytes();
    }

    /** A flow of {@code host} got something to send after being idle. */
    void activate(int host, int flow) {
        active[host].add(flow);
    }

    /** The next data packet of {@code host}, round-robin over its flows, or -1 when none has anything to send. */
    int nextPacket(int host) {
        IntFifo ring = active[host];
        if (ring.isEmpty()) {
            return -1;
        }
        int flow = ring.poll();
        int payload = flows.nextPayload(flow, mtu);
        int message = flows.sendingMessage(flow);
        boolean last = flows.take(flow, payload);
        if (flows.hasBacklog(flow)) {
            ring.add(flow);
        }
        return packets.allocate(Packets.DATA, flow, payload + header, payload, message, last);
    }
}
