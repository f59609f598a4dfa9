package io.reactorrdma.incast;

import io.reactorrdma.incast.dcqcn.ReactionPoints;
import io.reactorrdma.incast.topology.IncastConfig;

/**
 * The hosts' NICs: each serves its flows (QPs) with something to send round-robin, one packet per turn, built when the
 * port is free to send (so a later rate limiter or send window decides per packet whether a flow is eligible).
 * With DCQCN ({@link #rateLimit}) a flow paced below line rate leaves the round-robin for {@link PacedFlows} and
 * rejoins its tail when eligible; one at line rate may send again when its packet's serialization ends, which is the
 * port's next turn anyway, so it stays in the round-robin exactly as without DCQCN.
 */
final class Nic {

    private final IntFifo[] active;
    private final Flows flows;
    private final Packets packets;
    private final int mtu;
    private final int header;
    private ReactionPoints rates;
    private PacedFlows paced;

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

    /** DCQCN's hook: from now on each flow sends only when {@code rateLimiters} say it is eligible. */
    void rateLimit(ReactionPoints rateLimiters) {
        this.rates = rateLimiters;
        this.paced = new PacedFlows(active.length);
    }

    /** A flow of {@code host} got something to send after being idle. */
    void activate(int host, int flow, long nowPs) {
        if (rates != null && rates.pacedBelowLine(flow) && rates.eligiblePs(flow) > nowPs) {
            paced.add(host, rates.eligiblePs(flow), flow);
        } else {
            active[host].add(flow);
        }
    }

    /**
     * The next data packet of {@code host}, round-robin over its eligible flows, or -1 when none may send now
     * ({@link #nextEligiblePs} says when one may).
     */
    int nextPacket(int host, long nowPs) {
        IntFifo ring = active[host];
        if (rates != null) {
            paced.release(host, nowPs, ring);
        }
        if (ring.isEmpty()) {
            return -1;
        }
        int flow = ring.poll();
        int payload = flows.nextPayload(flow, mtu);
        int message = flows.sendingMessage(flow);
        boolean last = flows.take(flow, payload);
        int wire = payload + header;
        if (rates == null) {
            if (flows.hasBacklog(flow)) {
                ring.add(flow);
            }
        } else {
            long eligible = rates.onSend(flow, wire, nowPs);
            if (flows.hasBacklog(flow)) {
                if (rates.pacedBelowLine(flow)) {
                    paced.add(host, eligible, flow);
                } else {
                    ring.add(flow); // eligible when this packet's serialization ends: the port's next turn
                }
            }
        }
        return packets.allocate(Packets.DATA, flow, wire, payload, message, last);
    }

    /** When the earliest rate-limited flow of {@code host} may send; {@link Long#MAX_VALUE} when none waits. */
    long nextEligiblePs(int host) {
        return rates == null ? Long.MAX_VALUE : paced.nextEligiblePs(host);
    }
}
