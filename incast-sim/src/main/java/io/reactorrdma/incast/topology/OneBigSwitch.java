package io.reactorrdma.incast.topology;

/** The validation topology: every host on one switch. Host {@code h}'s NIC is port h, its switch port hosts + h. */
public final class OneBigSwitch implements Topology {

    private final int hosts;

    /** A switch with one port per host; at least two hosts. */
    public OneBigSwitch(int hosts) {
        if (hosts < 2) {
            throw new IllegalArgumentException("hosts " + hosts + ": a fabric needs at least two hosts");
        }
        this.hosts = hosts;
    }

    @Override
    public int hosts() {
        return hosts;
    }

    @Override
    public int ports() {
        return 2 * hosts;
    }

    @Override
    public int switches() {
        return 1;
    }

    @Override
    public int peer(int port) {
        return port < hosts ? port + hosts : port - hosts;
    }

    @Override
    public int switchOf(int port) {
        return port < hosts ? -1 : 0;
    }

    @Override
    public int firstPort(int sw) {
        return hosts;
    }

    @Override
    public int portCount(int sw) {
        return hosts;
    }

    @Override
    public int egress(int sw, int dstHost, int flow) {
        return hosts + dstHost;
    }
}
