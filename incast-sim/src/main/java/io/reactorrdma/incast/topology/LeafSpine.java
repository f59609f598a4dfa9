package io.reactorrdma.incast.topology;

/**
 * Topology B of the model notes: ToRs with host ports below and one uplink to every spine above, ECMP by flow.
 *
 * <p>Numbering, with H = tors × hostsPerTor and U = spines:
 * <ul>
 *   <li>host h (port h, 0 ≤ h &lt; H) sits under ToR h / hostsPerTor, in slot h % hostsPerTor;</li>
 *   <li>ToR t is switch t; its ports start at H + t·(hostsPerTor + U): first the downlinks in slot order, then
 *       the uplinks, uplink s going to spine s;</li>
 *   <li>spine s is switch tors + s; its ports start at H + tors·(hostsPerTor + U) + s·tors, port t going to ToR t.</li>
 * </ul>
 *
 * <p>Routing: within a ToR, straight down; across ToRs, up the uplink to spine {@link #spineOf(int) spineOf(flow)},
 * which sends it down to the destination's ToR. ACKs of a flow take the same spine back, so a flow uses one path
 * each way and never reorders. Host links run at {@link IncastConfig#linkBitsPerSecond()} and ToRs get
 * {@link IncastConfig#switchBufferBytes()}; ToR–spine links and spines take {@link LeafSpineConfig}'s values.
 */
public final class LeafSpine implements Topology {

    private final LeafSpineConfig shape;
    private final int tors;
    private final int perTor;
    private final int spines;
    private final int hosts;
    private final int torPorts;
    private final int spineBase;
    private final int ports;
    /** Per port, precomputed so the event loop divides nothing: its peer, its switch (-1 for a host), its tier. */
    private final int[] peerOf;
    private final int[] switchOfPort;
    private final Tier[] tierOf;
    /** Per host: its ToR. */
    private final int[] torOfHost;

    /** The fabric {@code shape} describes. */
    public LeafSpine(LeafSpineConfig shape) {
        this.shape = shape;
        this.tors = shape.tors();
        this.perTor = shape.hostsPerTor();
        this.spines = shape.spines();
        this.hosts = shape.hosts();
        this.torPorts = perTor + spines;
        this.spineBase = hosts + tors * torPorts;
        this.ports = spineBase + spines * tors;
        this.peerOf = new int[ports];
        this.switchOfPort = new int[ports];
        this.tierOf = new Tier[ports];
        this.torOfHost = new int[hosts];
        for (int h = 0; h < hosts; h++) {
            torOfHost[h] = h / perTor;
        }
        for (int p = 0; p < ports; p++) {
            peerOf[p] = computePeer(p);
            switchOfPort[p] = computeSwitchOf(p);
            tierOf[p] = computeTier(p);
        }
    }

    /** The parameters this fabric was built from. */
    public LeafSpineConfig shape() {
        return shape;
    }

    /**
     * ECMP: the spine that flow {@code flow} crosses, the same for every packet and ACK of the flow. The hash is
     * SplitMix64's finalizer of the flow id: z = flow + 0x9E3779B97F4A7C15; z = (z ^ z>>>30)·0xBF58476D1CE4E5B9;
     * z = (z ^ z>>>27)·0x94D049BB133111EB; z ^= z>>>31; spine = z mod spines (unsigned). Flow ids are the
     * simulation's (0, 1, 2, … in the order flows are added), so one set of flows always takes the same spines.
     */
    public int spineOf(int flow) {
        long z = flow + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (int) Long.remainderUnsigned(z, spines);
    }

    /** The ToR of host {@code host}. */
    public int torOf(int host) {
        return host / perTor;
    }

    /** Host port of ToR {@code tor}'s slot {@code slot}: tor × hostsPerTor + slot. */
    public int host(int tor, int slot) {
        if (tor < 0 || tor >= tors || slot < 0 || slot >= perTor) {
            throw new IllegalArgumentException("ToR " + tor + " slot " + slot + ": ToRs are 0.." + (tors - 1)
                    + " and slots 0.." + (perTor - 1));
        }
        return tor * perTor + slot;
    }

    /** ToR {@code tor}'s port towards spine {@code spine}. */
    public int uplink(int tor, int spine) {
        return hosts + tor * torPorts + perTor + spine;
    }

    /** ToR {@code tor}'s port towards its host {@code host}. */
    public int downlink(int host) {
        return hosts + torOf(host) * torPorts + host % perTor;
    }

    /** Spine {@code spine}'s port towards ToR {@code tor}. */
    public int spinePort(int spine, int tor) {
        return spineBase + spine * tors + tor;
    }

    /**
     * Lays {@code servers} parameter servers and then {@code trainers} trainers onto hosts as {@code placement} says;
     * together they must fit the hosts.
     */
    public HostPlan place(Placement placement, int servers, int trainers) {
        if (servers < 0 || trainers < 0 || (long) servers + trainers > hosts) {
            throw new IllegalArgumentException(servers + " servers + " + trainers + " trainers: need non-negative "
                    + "counts that fit the " + hosts + " hosts (" + tors + " ToRs × " + perTor + "); add ToRs or "
                    + "hostsPerTor");
        }
        int[] order = new int[hosts];
        for (int i = 0; i < hosts; i++) {
            order[i] = placement == Placement.CLUSTERED ? i : (i % tors) * perTor + i / tors;
        }
        return new HostPlan(order, servers, trainers);
    }

    @Override
    public int hosts() {
        return hosts;
    }

    @Override
    public int ports() {
        return ports;
    }

    @Override
    public int switches() {
        return tors + spines;
    }

    @Override
    public int peer(int port) {
        return peerOf[port];
    }

    @Override
    public int switchOf(int port) {
        return switchOfPort[port];
    }

    @Override
    public Tier tier(int port) {
        return tierOf[port];
    }

    private int computePeer(int port) {
        if (port < hosts) {
            return downlink(port);
        }
        if (port < spineBase) {
            int tor = (port - hosts) / torPorts;
            int local = (port - hosts) % torPorts;
            return local < perTor ? tor * perTor + local : spinePort(local - perTor, tor);
        }
        int spine = (port - spineBase) / tors;
        int tor = (port - spineBase) % tors;
        return uplink(tor, spine);
    }

    private int computeSwitchOf(int port) {
        if (port < hosts) {
            return -1;
        }
        if (port < spineBase) {
            return (port - hosts) / torPorts;
        }
        return tors + (port - spineBase) / tors;
    }

    @Override
    public int firstPort(int sw) {
        return sw < tors ? hosts + sw * torPorts : spineBase + (sw - tors) * tors;
    }

    @Override
    public int portCount(int sw) {
        return sw < tors ? torPorts : tors;
    }

    @Override
    public int egress(int sw, int dstHost, int flow) {
        int dstTor = torOfHost[dstHost];
        if (sw >= tors) {
            return spineBase + (sw - tors) * tors + dstTor;
        }
        return dstTor == sw ? peerOf[dstHost] : hosts + sw * torPorts + perTor + spineOf(flow);
    }

    private Tier computeTier(int port) {
        if (port < hosts) {
            return Tier.HOST_NIC;
        }
        if (port >= spineBase) {
            return Tier.SPINE;
        }
        return (port - hosts) % torPorts < perTor ? Tier.TOR_DOWNLINK : Tier.TOR_UPLINK;
    }

    @Override
    public long linkBitsPerSecond(int port, IncastConfig config) {
        Tier tier = tier(port);
        return tier == Tier.HOST_NIC || tier == Tier.TOR_DOWNLINK ? config.linkBitsPerSecond()
                : shape.uplinkBitsPerSecond();
    }

    @Override
    public long switchBufferBytes(int sw, IncastConfig config) {
        return sw < tors ? config.switchBufferBytes() : shape.spineBufferBytes();
    }
}
