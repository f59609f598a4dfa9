package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.VerbsConformanceSuite;
import io.reactorrdma.verbs.VerbsContext;

import java.time.Duration;

/** The conformance suite on the in-JVM fabric. */
class LoopbackConformanceTest extends VerbsConformanceSuite {

    static final Duration PEER_TIMEOUT = Duration.ofMillis(400);

    @Override
    protected VerbsContext openContext() {
        return SoftContext.openLoopback(SoftConfig.defaults().withPeerTimeout(PEER_TIMEOUT));
    }

    @Override
    protected void vanish(VerbsContext context) {
        ((SoftContext) context).vanish();
    }

    @Override
    protected Duration peerDeathBound() {
        return PEER_TIMEOUT.multipliedBy(10);
    }

    @Override
    protected long peerWakeupsSentBy(io.reactorrdma.verbs.QueuePair qp) {
        return ((SoftQueuePair) qp).peerWakeups();
    }
}
