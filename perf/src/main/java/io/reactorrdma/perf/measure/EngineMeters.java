package io.reactorrdma.perf.measure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.perf.cli.PerfException;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The engine's {@code rdma.*} counters, and the allocator's block registrations, as
 * one side of an echo run saw them: a
 * snapshot summed over thread domains, the difference of two snapshots, and the line the run
 * prints. Travels from a forked peer as text: {@code name=value} pairs separated by spaces.
 */
public final class EngineMeters {

    /** The counters read, in the order they are printed. */
    static final String[] NAMES = {"rdma.doorbells", "rdma.posts", "rdma.posts.signaled", "rdma.completions",
        "rdma.credit.stalls", "rdma.window.stalls", "rdma.socket.stalls", "rdma.rnr", "rdma.rendezvous",
        "rdma.pulled", "rdma.pull.copies", "rdma.copies.on.send", "rdma.bytes.sent", "rdma.memory.registrations",
        "rdma.idle.waits", "rdma.idle.spins",
        "rdma.idle.spins.paid", "rdma.idle.spins.skipped"};

    public static final EngineMeters NONE = new EngineMeters(Map.of());

    private final Map<String, Double> values;

    private EngineMeters(Map<String, Double> values) {
        this.values = values;
    }

    /** The counters now, each summed over the domains (tags) that publish it; a counter not registered reads 0. */
    public static EngineMeters snapshot(MeterRegistry registry) {
        Map<String, Double> v = new LinkedHashMap<>();
        for (String name : NAMES) {
            double sum = 0;
            for (FunctionCounter c : registry.find(name).functionCounters()) {
                sum += c.count();
            }
            v.put(name, sum);
        }
        return new EngineMeters(v);
    }

    /** Parses {@link #format()}'s text. */
    public static EngineMeters parse(String text) {
        Map<String, Double> v = new LinkedHashMap<>();
        for (String pair : text.trim().split("\\s+")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                if (pair.isEmpty()) {
                    continue;
                }
                throw new PerfException("the peer's meter report '" + text + "' has '" + pair + "' where name=value belongs;"
                        + " are both ends the same perf jar?");
            }
            try {
                v.put(pair.substring(0, eq), Double.parseDouble(pair.substring(eq + 1)));
            } catch (NumberFormatException e) {
                throw new PerfException("the peer's meter report has a non-number in '" + pair + "'; are both ends the same perf jar?");
            }
        }
        return new EngineMeters(v);
    }

    public String format() {
        StringBuilder b = new StringBuilder();
        values.forEach((k, x) -> b.append(b.length() == 0 ? "" : " ").append(k).append('=').append((long) (double) x));
        return b.toString();
    }

    /** {@code this - earlier}, counter by counter. */
    public EngineMeters minus(EngineMeters earlier) {
        Map<String, Double> v = new LinkedHashMap<>();
        values.forEach((k, x) -> v.put(k, x - earlier.get(k)));
        return new EngineMeters(v);
    }

    public double get(String name) {
        return values.getOrDefault(name, 0.0);
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    /**
     * The figures the performance notes ask for, for a side that sent {@code messages} application
     * messages: doorbells and posts per message, the signaled fraction of posts, the stalls, RNR
     * events, rendezvous round trips, messages pulled (pull rendezvous) and payloads copied to be pulled,
     * copies on send, registrations of new memory blocks (0 in
     * a steady state), the I/O thread's idle waits per message (how often a message
     * found it blocked; 0 with spin) and, under back-off, its idle episodes that spun in full (with the
     * share of those spins that paid) or skipped the spin, per message.
     */
    public String describe(long messages) {
        if (values.isEmpty()) {
            return "no engine meters";
        }
        double posts = get("rdma.posts");
        return String.format(Locale.ROOT, "%d messages sent: %.3f doorbells/msg, %.3f posts/msg, signaled %.1f%% of posts, "
                        + "%d completions, credit stalls %d, window stalls %d, socket stalls %d, RNR %d, rendezvous %d, pulled %d, "
                        + "pull copies %d, copies on send %d, block registrations %d, idle waits %.3f/msg, "
                        + "full spins %.3f/msg (%.0f%% paid), skipped spins %.3f/msg",
                messages, perMessage("rdma.doorbells", messages), perMessage("rdma.posts", messages),
                posts > 0 ? 100 * get("rdma.posts.signaled") / posts : 0.0, (long) get("rdma.completions"),
                (long) get("rdma.credit.stalls"), (long) get("rdma.window.stalls"), (long) get("rdma.socket.stalls"),
                (long) get("rdma.rnr"), (long) get("rdma.rendezvous"), (long) get("rdma.pulled"), (long) get("rdma.pull.copies"),
                (long) get("rdma.copies.on.send"),
                (long) get("rdma.memory.registrations"), perMessage("rdma.idle.waits", messages),
                perMessage("rdma.idle.spins", messages),
                get("rdma.idle.spins") > 0 ? 100 * get("rdma.idle.spins.paid") / get("rdma.idle.spins") : 0.0,
                perMessage("rdma.idle.spins.skipped", messages));
    }

    private double perMessage(String name, long messages) {
        return messages > 0 ? get(name) / messages : Double.NaN;
    }
}
