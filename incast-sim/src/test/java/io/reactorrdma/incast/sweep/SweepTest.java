package io.reactorrdma.incast.sweep;

import io.reactorrdma.incast.topology.Tier;
import io.reactorrdma.incast.report.IncastTable;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sweep's run loop, measurement and CSV on a PFC-only Poisson incast (one switch): the figures are those of the
 * simulation, the arms are independent (a pool of two gives the same figures as one thread), and the CSV has its
 * stable columns (the chart: IncastSimCommandTest).
 */
class SweepTest {

    private static final long DURATION_PS = 200_000_000L; // 200 µs of posting, then the drain
    private static final List<Arm> ARMS = List.of(Arm.pfc(), Arm.window(8 * 1024), Arm.window(64 * 1024));

    @Test
    void eachArmIsMeasuredFromItsOwnSimulationAndDrains() {
        List<ArmResult> seen = new CopyOnWriteArrayList<>();
        List<ArmResult> results = new Sweep(arm -> new PoissonFabric(arm, 16, 7), DURATION_PS, 1, seen::add).run(ARMS);
        assertThat(results).extracting(ArmResult::arm).containsExactlyElementsOf(ARMS);
        assertThat(seen).containsExactlyElementsOf(results);
        for (ArmResult r : results) {
            // 16 senders at 150 % of one link for 200 µs: about 200e-6 × 1.5 × 25e9 / 8 / 8848 B ≈ 106 messages
            assertThat(r.pushes()).isBetween(50L, 170L);
            assertThat(r.deliveredBytes()).isEqualTo(r.pushes() * 8 * 1024);
            assertThat(r.p50Us()).isPositive().isLessThanOrEqualTo(r.p99Us());
            assertThat(r.p99Us()).isLessThanOrEqualTo(r.p999Us());
            assertThat(r.simulatedPs()).isGreaterThanOrEqualTo(DURATION_PS);
            assertThat(r.goodputBitsPerSecond()).isEqualTo(r.deliveredBytes() * 8e12 / r.simulatedPs());
            assertThat(r.goodputShare()).isEqualTo(r.goodputBitsPerSecond() / 25e9).isBetween(0.5, 1024.0 / 1106);
            assertThat(r.xoffs(Tier.HOST_NIC)).as("PFC pauses the senders' NICs").isPositive();
            assertThat(r.xoffs(Tier.TOR_DOWNLINK)).as("hosts send no PFC").isZero();
            assertThat(r.nicsPausedShare()).isGreaterThan(0).isLessThanOrEqualTo(16.0 / 17);
            assertThat(r.maxQueueBytes()).isGreaterThanOrEqualTo(r.p99QueueBytes()).isPositive();
            assertThat(r.events()).isPositive();
        }
        assertThat(results.get(1).pushes()).as("arms differ").isNotEqualTo(results.get(2).pushes());
    }

    @Test
    void aPoolOfTwoGivesEachArmTheFiguresOfOneThread() {
        String one = csvWithoutWallTime(new Sweep(arm -> new PoissonFabric(arm, 16, 7), DURATION_PS, 1, r -> { }).run(ARMS));
        String two = csvWithoutWallTime(new Sweep(arm -> new PoissonFabric(arm, 16, 7), DURATION_PS, 2, r -> { }).run(ARMS));
        assertThat(two).isEqualTo(one);
        String otherSeed = csvWithoutWallTime(new Sweep(arm -> new PoissonFabric(arm, 16, 8), DURATION_PS, 1, r -> { }).run(ARMS));
        assertThat(otherSeed).isNotEqualTo(one);
    }

    @Test
    void theCsvHasOneRowPerArmUnderStableColumns() {
        List<ArmResult> results = new Sweep(arm -> new PoissonFabric(arm, 16, 7), DURATION_PS, 1, r -> { }).run(ARMS);
        String[] lines = csv(results).split("\\R");
        assertThat(lines[0]).isEqualTo(IncastTable.CSV_HEADER).startsWith("arm,kind,window_bytes,pushes,p50_us,p99_us,p999_us,"
                + "xoff_nic,xoff_tor_down,xoff_tor_up,xoff_spine,paused_us_nic,");
        assertThat(lines).hasSize(1 + ARMS.size());
        int columns = IncastTable.CSV_HEADER.split(",").length;
        assertThat(lines[1]).startsWith("pfc,pfc,,");
        assertThat(lines[2]).startsWith("dcqcn+w8k,window,8192,");
        for (int i = 1; i < lines.length; i++) {
            assertThat(lines[i].split(",", -1)).hasSize(columns);
        }
    }

    @Test
    void theQueueSamplesEndWithTheLastCompletionSoIdleTimeAfterTheWorkDoesNotDiluteThem() {
        // 100 messages end well before 2 ms; a 20 ms duration only adds idle slices after the last completion
        ArmResult shorter = new Sweep(arm -> new PoissonFabric(arm, 16, 7, 100), 2_000_000_000L, 1, r -> { })
                .run(List.of(Arm.pfc())).get(0);
        ArmResult longer = new Sweep(arm -> new PoissonFabric(arm, 16, 7, 100), 20_000_000_000L, 1, r -> { })
                .run(List.of(Arm.pfc())).get(0);
        assertThat(shorter.pushes()).isEqualTo(100);
        assertThat(shorter.p99QueueBytes()).isPositive().isEqualTo(longer.p99QueueBytes());
        assertThat(longer.simulatedPs()).as("the arm's time is that of its last event").isEqualTo(shorter.simulatedPs());
    }

    static String csv(List<ArmResult> results) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        IncastTable.csv(new PrintStream(bytes, true, StandardCharsets.UTF_8), results);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The CSV without wall_s and events_per_s, the figures that differ between equal runs. */
    static String csvWithoutWallTime(List<ArmResult> results) {
        List<String> header = List.of(IncastTable.CSV_HEADER.split(","));
        int wall = header.indexOf("wall_s");
        int rate = header.indexOf("events_per_s");
        List<String> out = new ArrayList<>();
        for (String line : csv(results).split("\\R")) {
            String[] cells = line.split(",", -1);
            cells[wall] = "";
            cells[rate] = "";
            out.add(String.join(",", cells));
        }
        return String.join("\n", out);
    }
}
