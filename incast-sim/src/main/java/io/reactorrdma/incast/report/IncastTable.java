package io.reactorrdma.incast.report;

import io.reactorrdma.incast.topology.Tier;
import io.reactorrdma.incast.sweep.ArmResult;
import io.reactorrdma.incast.sweep.Recommendation;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * incast-sim's output: a readable table (latency, goodput, queues, DCQCN; then PFC per tier) or CSV, one row per arm
 * with {@link #CSV_HEADER}'s columns, and the recommendation line last.
 */
public final class IncastTable {

    /** The CSV's columns, in order; stable names (per-tier columns for every tier, zero where a topology lacks one). */
    public static final String CSV_HEADER = csvHeader();

    private static final String MAIN_FORMAT = "%-14s %6s %8s %10s %10s %10s %9s %6s %10s %10s %9s %9s %11s %8s %7s%n";
    private static final String PFC_FORMAT = "%-14s %9s %13s %11s %10s %15s %19s %17s %16s %7s%n";

    private IncastTable() {
    }

    /** The readable tables of {@code results}, then the recommendation. */
    public static void table(PrintStream out, List<ArmResult> results) {
        out.printf(Locale.ROOT, MAIN_FORMAT, "arm", "window", "pushes", "p50 us", "p99 us", "p99.9 us", "gput Gb/s", "share",
                "maxQ KiB", "p99Q KiB", "ECN", "CNPs", "events", "wall s", "Mev/s");
        for (ArmResult r : results) {
            out.printf(Locale.ROOT, MAIN_FORMAT, r.arm().label(), r.arm().windowLabel(), r.pushes(), f1(r.p50Us()), f1(r.p99Us()),
                    f1(r.p999Us()), String.format(Locale.ROOT, "%.2f", r.goodputBitsPerSecond() / 1e9),
                    String.format(Locale.ROOT, "%.3f", r.goodputShare()), f1(r.maxQueueBytes() / 1024.0),
                    f1(r.p99QueueBytes() / 1024.0), r.ecnMarks(), r.cnps(), r.events(),
                    String.format(Locale.ROOT, "%.2f", r.wallNanos() / 1e9), f1(r.eventsPerSecond() / 1e6));
        }
        out.println();
        List<Object> head = new ArrayList<>(List.of("arm"));
        for (Tier t : Tier.values()) {
            head.add("xoff " + ArmResult.tierId(t));
        }
        for (Tier t : Tier.values()) {
            head.add("paused us " + ArmResult.tierId(t));
        }
        head.add("NICs %");
        out.printf(Locale.ROOT, PFC_FORMAT, head.toArray());
        for (ArmResult r : results) {
            List<Object> cells = new ArrayList<>(List.of(r.arm().label()));
            for (Tier t : Tier.values()) {
                cells.add(Long.toString(r.xoffs(t)));
            }
            for (Tier t : Tier.values()) {
                cells.add(f1(r.pausedUs(t)));
            }
            cells.add(f1(r.nicsPausedShare() * 100));
            out.printf(Locale.ROOT, PFC_FORMAT, cells.toArray());
        }
        out.println();
        out.println("push latency: post to the ACK of the push's last packet; goodput: payload delivered to the servers / simulated "
                + "time, share of their links' line rate; maxQ: the largest egress queue of any switch port; p99Q: time-weighted p99 "
                + "of the queues towards the servers, sampled every 10 us; paused us: summed over the tier's ports");
        out.println(Recommendation.line(results));
        out.flush();
    }

    /** The CSV: header, one row per arm (the {@code recommended} column 1 on the winner), nothing else. */
    public static void csv(PrintStream out, List<ArmResult> results) {
        Optional<ArmResult> winner = Recommendation.choose(results);
        out.println(CSV_HEADER);
        for (ArmResult r : results) {
            List<String> cells = new ArrayList<>();
            cells.add(r.arm().label());
            cells.add(r.arm().kind().id());
            cells.add(r.arm().windowed() ? Long.toString(r.arm().windowBytes()) : "");
            cells.add(Long.toString(r.pushes()));
            cells.add(f3(r.p50Us()));
            cells.add(f3(r.p99Us()));
            cells.add(f3(r.p999Us()));
            for (Tier t : Tier.values()) {
                cells.add(Long.toString(r.xoffs(t)));
            }
            for (Tier t : Tier.values()) {
                cells.add(f3(r.pausedUs(t)));
            }
            cells.add(String.format(Locale.ROOT, "%.4f", r.nicsPausedShare()));
            cells.add(Long.toString(r.maxQueueBytes()));
            cells.add(Long.toString(r.p99QueueBytes()));
            cells.add(Long.toString(r.ecnMarks()));
            cells.add(Long.toString(r.cnps()));
            cells.add(Long.toString(r.deliveredBytes()));
            cells.add(f3(r.simulatedPs() / 1e6));
            cells.add(String.format(Locale.ROOT, "%.4f", r.goodputBitsPerSecond() / 1e9));
            cells.add(String.format(Locale.ROOT, "%.4f", r.goodputShare()));
            cells.add(Long.toString(r.events()));
            cells.add(f3(r.wallNanos() / 1e9));
            cells.add(String.format(Locale.ROOT, "%.0f", r.eventsPerSecond()));
            cells.add(winner.isPresent() && winner.get() == r ? "1" : "0");
            out.println(String.join(",", cells));
        }
        out.flush();
    }

    private static String csvHeader() {
        List<String> names = new ArrayList<>(List.of("arm", "kind", "window_bytes", "pushes", "p50_us", "p99_us", "p999_us"));
        for (Tier t : Tier.values()) {
            names.add("xoff_" + ArmResult.tierId(t));
        }
        for (Tier t : Tier.values()) {
            names.add("paused_us_" + ArmResult.tierId(t));
        }
        names.addAll(List.of("nics_paused_share", "max_queue_bytes", "p99_queue_bytes", "ecn_marks", "cnps", "delivered_bytes",
                "simulated_us", "goodput_gbps", "goodput_share", "events", "wall_s", "events_per_s", "recommended"));
        return String.join(",", names);
    }

    private static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
