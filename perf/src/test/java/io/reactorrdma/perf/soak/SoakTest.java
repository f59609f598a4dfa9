package io.reactorrdma.perf.soak;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bounded soak: {@link SoakRun} for 30 s with a fixed seed — two forked servers
 * over shm, 16 connections, random sizes up to 8 MiB, cancels, direct writes, one server frozen
 * and thawed, the other killed and restarted — and not one violation. Part of {@code mvn verify}.
 */
@Tag("soak")
@Timeout(180)
class SoakTest {

    @Test
    void thirtySecondsOfFaultsLoseNothingSilentlyAndLeaveNothingBehind() {
        ByteArrayOutputStream summary = new ByteArrayOutputStream();
        SoakRun run = new SoakRun(SoakOptions.parse(new String[]{"--duration", "30s", "--seed", "20261201"}),
                new PrintStream(summary, true, StandardCharsets.UTF_8));
        run.run();
        String text = summary.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        SoakLedger ledger = run.ledger();
        assertThat(ledger.violations()).as(text).isEmpty();
        assertThat(ledger.delivered.sum()).as("messages delivered intact").isPositive();
        assertThat(ledger.directWritesVerified.sum()).as("direct writes verified").isPositive();
        assertThat(ledger.receiveCancels.sum()).as("receives the server cancelled").isPositive();
        assertThat(run.faults()).as("faults injected").hasSize(2);
    }
}
