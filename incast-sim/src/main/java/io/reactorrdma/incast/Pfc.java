package io.reactorrdma.incast;

/**
 * PFC state per transmitting port: whether its data priority is paused, how many XOFFs it received, and how long it
 * was paused. A paused port finishes the packet it is sending and starts no data packet until XON; control packets
 * (ACKs) ride a priority PFC never pauses. An XOFF holds until XON (the switch always sends one), so quanta expiry is
 * not modelled.
 */
final class Pfc {

    private final boolean[] paused;
    private final boolean[] everPaused;
    private final long[] pausedSincePs;
    private final long[] pausedPs;
    private final long[] xoffs;
    private long xoffTotal;

    Pfc(int ports) {
        paused = new boolean[ports];
        everPaused = new boolean[ports];
        pausedSincePs = new long[ports];
        pausedPs = new long[ports];
        xoffs = new long[ports];
    }

    /** A PFC frame reaches {@code port}: pause (XOFF) or resume (XON). */
    void onFrame(int port, boolean pause, long nowPs) {
        if (pause) {
            xoffs[port]++;
            xoffTotal++;
            if (!paused[port]) {
                paused[port] = true;
                everPaused[port] = true;
                pausedSincePs[port] = nowPs;
            }
        } else if (paused[port]) {
            paused[port] = false;
            pausedPs[port] += nowPs - pausedSincePs[port];
        }
    }

    boolean paused(int port) {
        return paused[port];
    }

    boolean everPaused(int port) {
        return everPaused[port];
    }

    /** Time {@code port} spent paused up to {@code nowPs}, counting a pause still in force. */
    long pausedPs(int port, long nowPs) {
        return pausedPs[port] + (paused[port] ? nowPs - pausedSincePs[port] : 0);
    }

    long xoffs(int port) {
        return xoffs[port];
    }

    long xoffTotal() {
        return xoffTotal;
    }
}
