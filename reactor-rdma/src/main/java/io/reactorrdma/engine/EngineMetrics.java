package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * A thread domain's counters, written by its I/O thread only (plain fields: a
 * reader on another thread may see a slightly stale value, never a torn one) and published to
 * Micrometer under {@code rdma.}.
 */
public final class EngineMetrics {

    long doorbells;
    long requestsPosted;
    long signaledPosted;
    long completions;
    long creditStalls;
    long windowStalls;
    long socketStalls;
    long rnrEvents;
    long rendezvousRoundTrips;
    long messagesPulled;
    long rendezvousRefused;
    long rendezvousRevocations;
    long bytesSent;
    long bytesReceived;
    long messagesReceived;
    long copiesOnSend;
    long copiedBytesOnSend;
    long pullCopies;
    long pullCopiedBytes;
    long socketsOpen;
    long engines;
    long engineFailures;
    long peakWindowBytes;
    long idleWaits;
    long idleSpins;
    long idleSpinsPaid;
    long idleSpinsSkipped;
    long minCredits = Long.MAX_VALUE;

    void doorbell(int requests, long signaled) {
        doorbells++;
        requestsPosted += requests;
        signaledPosted += signaled;
    }

    void completion() {
        completions++;
    }

    void creditStall() {
        creditStalls++;
    }

    void windowStall() {
        windowStalls++;
    }

    void socketStall() {
        socketStalls++;
    }

    void rnr() {
        rnrEvents++;
    }

    void rendezvous() {
        rendezvousRoundTrips++;
    }

    void pulled() {
        messagesPulled++;
    }

    void rendezvousRefusal() {
        rendezvousRefused++;
    }

    void rendezvousRevocation() {
        rendezvousRevocations++;
    }

    void sent(long bytes) {
        bytesSent += bytes;
    }

    void received(long bytes) {
        bytesReceived += bytes;
        messagesReceived++;
    }

    void copyOnSend(long bytes) {
        copiesOnSend++;
        copiedBytesOnSend += bytes;
    }

    /** A registered payload outside the peer-readable memory was copied there to go by pull. */
    void pullCopy(long bytes) {
        pullCopies++;
        pullCopiedBytes += bytes;
    }

    /** Bytes in flight and credits left after a request was prepared: tracks the extremes. */
    void inFlight(long windowBytes, int creditsLeft) {
        if (windowBytes > peakWindowBytes) {
            peakWindowBytes = windowBytes;
        }
        if (creditsLeft < minCredits) {
            minCredits = creditsLeft;
        }
    }

    void socketOpened() {
        socketsOpen++;
    }

    void socketClosed() {
        socketsOpen--;
    }

    void engineAdded() {
        engines++;
    }

    void engineRemoved() {
        engines--;
    }

    void engineFailed() {
        engineFailures++;
    }

    void idleWait() {
        idleWaits++;
    }

    void idleSpin() {
        idleSpins++;
    }

    void idleSpinPaid() {
        idleSpinsPaid++;
    }

    void idleSpinSkipped() {
        idleSpinsSkipped++;
    }

    public long doorbells() {
        return doorbells;
    }

    public long requestsPosted() {
        return requestsPosted;
    }

    /** Work requests posted with the signaled flag: the signaled fraction is this over {@link #requestsPosted}. */
    public long signaledPosted() {
        return signaledPosted;
    }

    public long completions() {
        return completions;
    }

    public long creditStalls() {
        return creditStalls;
    }

    public long windowStalls() {
        return windowStalls;
    }

    public long socketStalls() {
        return socketStalls;
    }

    public long rnrEvents() {
        return rnrEvents;
    }

    public long rendezvousRoundTrips() {
        return rendezvousRoundTrips;
    }

    /** Messages of the peers this domain pulled (pull rendezvous: READ into local memory). */
    public long messagesPulled() {
        return messagesPulled;
    }

    /** Rendezvous requests of the peer we refused (no destination could be allocated). */
    public long rendezvousRefused() {
        return rendezvousRefused;
    }

    /** Destinations we revoked because their data did not come within the write timeout. */
    public long rendezvousRevocations() {
        return rendezvousRevocations;
    }

    public long bytesSent() {
        return bytesSent;
    }

    public long bytesReceived() {
        return bytesReceived;
    }

    public long copiesOnSend() {
        return copiesOnSend;
    }

    public long copiedBytesOnSend() {
        return copiedBytesOnSend;
    }

    /** Large payloads in registered memory the peer may not read, copied into memory it may read to go by pull. */
    public long pullCopies() {
        return pullCopies;
    }

    public long pullCopiedBytes() {
        return pullCopiedBytes;
    }

    public long socketsOpen() {
        return socketsOpen;
    }

    public long engines() {
        return engines;
    }

    /**
     * Engines that ended because their peer was lost or broke the protocol, not closed by either
     * side: the provider found the peer dead or silent (soft: process killed or exited, or stopped
     * past the peer timeout), a work completion failed with a transport error (RETRY_EXC_ERR and
     * any status but WR_FLUSH_ERR) while the connection was up, or the peer sent what the protocol
     * forbids. Counted once per engine.
     */
    public long engineFailures() {
        return engineFailures;
    }

    /**
     * Times the I/O thread found nothing to do for its idle strategy's spin and blocked on completion
     * notification (never with BUSY_SPIN). Per message, it says how often a peer's message found the
     * thread asleep and paid a wake-up: the measure of whether BACK_OFF's spin covers the traffic's gaps.
     */
    public long idleWaits() {
        return idleWaits;
    }

    /**
     * Idle episodes in which a {@link IdleStrategy#BACK_OFF} thread spun its full budget before blocking: while
     * recent spins paid, and one probe in every few episodes while they did not (0 with the other strategies).
     */
    public long idleSpins() {
        return idleSpins;
    }

    /** Full spins ({@link #idleSpins}) that found work soon enough to pay: the share BACK_OFF decides on. */
    public long idleSpinsPaid() {
        return idleSpinsPaid;
    }

    /**
     * Idle episodes in which a {@link IdleStrategy#BACK_OFF} thread skipped the full spin, because too few recent
     * spins paid, and blocked after {@link IdleStrategy#BLOCK}'s short spin (0 with the other strategies).
     */
    public long idleSpinsSkipped() {
        return idleSpinsSkipped;
    }

    /** Most bytes ever in flight on one engine of this domain (never above the send window). */
    public long peakWindowBytes() {
        return peakWindowBytes;
    }

    /** Fewest receive credits an engine of this domain was ever left with (never negative). */
    public long minCredits() {
        return minCredits == Long.MAX_VALUE ? 0 : minCredits;
    }

    /** Binds the counters to {@code registry}, tagged with {@code tags} (e.g. the domain). */
    public void bindTo(MeterRegistry registry, Tags tags) {
        counter(registry, "rdma.doorbells", "post calls (each one doorbell)", EngineMetrics::doorbells, tags);
        counter(registry, "rdma.posts", "work requests posted", EngineMetrics::requestsPosted, tags);
        counter(registry, "rdma.posts.signaled", "work requests posted signaled (signaled ratio = this / rdma.posts)",
                EngineMetrics::signaledPosted, tags);
        counter(registry, "rdma.completions", "work completions processed", EngineMetrics::completions, tags);
        counter(registry, "rdma.credit.stalls", "turns a socket waited for receive credits", EngineMetrics::creditStalls, tags);
        counter(registry, "rdma.window.stalls", "turns a socket waited for send-window room", EngineMetrics::windowStalls, tags);
        counter(registry, "rdma.socket.stalls", "turns a socket waited for its peer's message allowance",
                EngineMetrics::socketStalls, tags);
        counter(registry, "rdma.rnr", "receiver-not-ready errors (must stay 0)", EngineMetrics::rnrEvents, tags);
        counter(registry, "rdma.rendezvous", "rendezvous round trips", EngineMetrics::rendezvousRoundTrips, tags);
        counter(registry, "rdma.pulled", "messages pulled from peers (pull rendezvous: RDMA READ)", EngineMetrics::messagesPulled, tags);
        counter(registry, "rdma.rendezvous.refused", "peer rendezvous requests refused: no destination could be allocated",
                EngineMetrics::rendezvousRefused, tags);
        counter(registry, "rdma.rendezvous.revoked", "destinations revoked: their data did not come within the write timeout",
                EngineMetrics::rendezvousRevocations, tags);
        counter(registry, "rdma.bytes.sent", "bytes sent", EngineMetrics::bytesSent, tags);
        counter(registry, "rdma.bytes.received", "bytes received", EngineMetrics::bytesReceived, tags);
        counter(registry, "rdma.copies.on.send", "payloads copied into registered memory before sending",
                EngineMetrics::copiesOnSend, tags);
        counter(registry, "rdma.pull.copies", "registered payloads copied into peer-readable memory to go by pull rendezvous",
                EngineMetrics::pullCopies, tags);
        counter(registry, "rdma.idle.waits", "times the I/O thread blocked on completion notification after its idle spin",
                EngineMetrics::idleWaits, tags);
        counter(registry, "rdma.idle.spins", "idle episodes in which a BACK_OFF I/O thread spun in full before blocking",
                EngineMetrics::idleSpins, tags);
        counter(registry, "rdma.idle.spins.paid", "full idle spins that found work soon enough to pay",
                EngineMetrics::idleSpinsPaid, tags);
        counter(registry, "rdma.idle.spins.skipped",
                "idle episodes in which a BACK_OFF I/O thread skipped the full spin (spins were not paying)",
                EngineMetrics::idleSpinsSkipped, tags);
        Gauge.builder("rdma.window.peak.bytes", this, EngineMetrics::peakWindowBytes).tags(tags).baseUnit("bytes")
                .description("most bytes in flight on one engine").register(registry);
        Gauge.builder("rdma.sockets", this, EngineMetrics::socketsOpen).tags(tags).description("open sockets").register(registry);
        counter(registry, "rdma.engine.failures",
                "engines that ended on a lost peer (dead, silent, transport error) or a protocol error, not on a close",
                EngineMetrics::engineFailures, tags);
        Gauge.builder("rdma.engines", this, EngineMetrics::engines).tags(tags).description("engines (queue pairs)").register(registry);
    }

    private void counter(MeterRegistry registry, String name, String description,
                         java.util.function.ToDoubleFunction<EngineMetrics> f, Tags tags) {
        FunctionCounter.builder(name, this, f).tags(tags).description(description).register(registry);
    }

    @Override
    public String toString() {
        return "EngineMetrics{doorbells=" + doorbells + ", posts=" + requestsPosted + ", signaled=" + signaledPosted
                + ", completions=" + completions
                + ", creditStalls=" + creditStalls + ", windowStalls=" + windowStalls + ", socketStalls=" + socketStalls
                + ", rnr=" + rnrEvents + ", rendezvous=" + rendezvousRoundTrips + ", pulled=" + messagesPulled + ", bytesSent=" + bytesSent
                + ", bytesReceived=" + bytesReceived + ", copiesOnSend=" + copiesOnSend + ", pullCopies=" + pullCopies
                + ", sockets=" + socketsOpen
                + ", engines=" + engines + ", engineFailures=" + engineFailures + ", idleWaits=" + idleWaits
                + ", idleSpins=" + idleSpins + ", idleSpinsPaid=" + idleSpinsPaid + ", idleSpinsSkipped=" + idleSpinsSkipped + "}";
    }
}
