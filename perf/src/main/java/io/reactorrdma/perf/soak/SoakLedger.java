package io.reactorrdma.perf.soak;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The soak's client-side account, summed over every connection; any thread may add to it. */
final class SoakLedger {

    final LongAdder offered = new LongAdder();
    final LongAdder offeredBytes = new LongAdder();
    final LongAdder delivered = new LongAdder();
    final LongAdder deliveredBytes = new LongAdder();
    /** Data messages the receiver found damaged (each also a violation). */
    final LongAdder damaged = new LongAdder();
    /** Data messages that vanished without a report to the sender (each also a violation). */
    final LongAdder lost = new LongAdder();
    final LongAdder directWrites = new LongAdder();
    /** Direct writes whose check got no receipt, for a reported reason (cancel, failure, the peer's close). */
    final LongAdder directWritesUnconfirmed = new LongAdder();
    final LongAdder directWritesVerified = new LongAdder();
    final LongAdder sendCancels = new LongAdder();
    final LongAdder cancelledUndelivered = new LongAdder();
    final LongAdder receiveCancels = new LongAdder();
    final LongAdder connections = new LongAdder();
    final Map<String, LongAdder> failedByCause = new ConcurrentHashMap<>();
    final Map<String, LongAdder> connectFailures = new ConcurrentHashMap<>();
    private final Queue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicLong violationCount = new AtomicLong();
    private final Recorder latencyMicros = new Recorder(3);

    /** A message that never arrived and whose sender was told why ({@code cause}). */
    void failed(String cause) {
        failedByCause.computeIfAbsent(cause, k -> new LongAdder()).increment();
    }

    void connectFailed(Throwable e) {
        connectFailures.computeIfAbsent(SoakLedger.cause(e), k -> new LongAdder()).increment();
    }

    /** A broken guarantee; kept (the first 50 in full) for the summary. */
    void violation(String what) {
        if (violationCount.incrementAndGet() <= 50) {
            violations.add(what);
        }
        System.err.println("[soak] VIOLATION: " + what);
    }

    long violationCount() {
        return violationCount.get();
    }

    Queue<String> violations() {
        return violations;
    }

    void latency(long nanos) {
        latencyMicros.recordValue(Math.max(0, nanos / 1000));
    }

    Histogram latencies() {
        return latencyMicros.getIntervalHistogram();
    }

    long failedTotal() {
        return failedByCause.values().stream().mapToLong(LongAdder::sum).sum();
    }

    static Map<String, Long> sorted(Map<String, LongAdder> m) {
        Map<String, Long> s = new TreeMap<>();
        m.forEach((k, v) -> s.put(k, v.sum()));
        return s;
    }

    /** A short cause: the exception's simple name and the first line of its message. */
    static String cause(Throwable e) {
        Throwable t = e;
        while ((t instanceof java.util.concurrent.ExecutionException || t instanceof java.util.concurrent.CompletionException
                || (t instanceof IllegalStateException && t.getCause() != null)) && t.getCause() != null) {
            t = t.getCause();
        }
        String m = t.getMessage();
        if (m == null) {
            return t.getClass().getSimpleName();
        }
        m = m.lines().findFirst().orElse("");
        // drop per-connection details (ids, ports, pids) so that equal causes add up
        m = m.replaceAll("[0-9]+", "#");
        return t.getClass().getSimpleName() + ": " + (m.length() > 120 ? m.substring(0, 120) + "..." : m);
    }
}
