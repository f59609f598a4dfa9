package io.reactorrdma.perf.soak;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaConnection;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.tools.cli.UsageException;
import io.reactorrdma.perf.peer.ForkedPeer;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.config.SoftConfig;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The {@code soak} command: two forked {@link SoakServer}s (A and B) and this process's client
 * over the shm fabric, in a private shm directory (mode 0700) of the run. {@code --connections}
 * connection slots (one in eight, at least one, to B) each run {@link SoakConnection}s back to
 * back. Faults: at 30% of the run A is frozen with SIGSTOP for {@code --freeze-ms} and thawed with
 * SIGCONT; at 55% B is killed with SIGKILL (a crashed peer: its engine dies with it, its files stay
 * in the directory) and its replacement, started at the beginning on standby, starts serving and
 * reclaims them; B's slots reconnect to it. At the
 * end every account is checked: see {@link #violations()}.
 */
public final class SoakRun {

    private final SoakOptions o;
    private final PrintStream out;
    private final SoakLedger ledger = new SoakLedger();
    private final List<String> faults = new ArrayList<>();
    private volatile boolean stopping;

    SoakRun(SoakOptions o, PrintStream out) {
        this.o = o;
        this.out = out;
    }

    /** {@code soak [options]}: runs and prints the summary; 0 when nothing was violated, 1 otherwise, 2 on a usage error. */
    public static int main(String[] args, PrintStream out) {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            out.print(SoakOptions.help());
            return ExitStatus.OK;
        }
        SoakOptions o;
        try {
            o = SoakOptions.parse(args);
        } catch (UsageException e) {
            System.err.println("error: " + e.getMessage());
            return ExitStatus.USAGE;
        }
        SoakRun run = new SoakRun(o, out);
        run.run();
        return run.ledger.violationCount() == 0 ? ExitStatus.OK : ExitStatus.FAILED;
    }

    SoakLedger ledger() {
        return ledger;
    }

    List<String> faults() {
        return faults;
    }

    /** Runs the soak; the violations are in {@link #ledger()}. */
    void run() {
        long started = System.nanoTime();
        Set<Thread> threadsBefore = SoakThreads.nonDaemon();
        Path dir = privateShmDirectory();
        out.printf(Locale.ROOT, "soak: %.0f s, %d connections, seed %d, shm directory %s%n", o.durationMillis / 1000.0,
                o.connections, o.seed, dir);
        ForkedPeer a = null;
        ForkedPeer standby = null;
        AtomicReference<ForkedPeer> b = new AtomicReference<>();
        RdmaResources client = null;
        String accountA = null;
        String accountB = null;
        try {
            a = ForkedPeer.launch("soak-server", serverArgs(dir, 1, false));
            standby = ForkedPeer.launch("soak-server", serverArgs(dir, 3, true));
            ForkedPeer firstB = ForkedPeer.launch("soak-server", serverArgs(dir, 2, false));
            b.set(firstB);
            a.awaitReady();
            firstB.awaitReady();
            client = RdmaResources.builder("soak-client").provider("shm")
                    .softConfig(SoftConfig.fromSystemProperties().withShmDirectory(dir)).threads(1).build();
            List<Thread> slots = startSlots(client, a, b);
            runFaults(started, a, b, standby, dir);
            stopping = true;
            for (Thread t : slots) {
                t.join(Duration.ofSeconds(90).toMillis());
                if (t.isAlive()) {
                    ledger.violation(t.getName() + " did not end within 90 s of the run's end");
                }
            }
            client.dispose();
            long live = client.allocator().liveBuffers();
            if (live != 0) {
                ledger.violation("the client's registered allocator holds " + live + " live buffers after close");
            }
            client = null;
            accountA = account("A", a);
            accountB = account("B", b.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ledger.violation("interrupted");
        } catch (RuntimeException e) {
            ledger.violation("the soak itself failed: " + e);
            Log.failure("the soak itself failed", e);
        } finally {
            stopping = true;
            if (client != null) {
                client.dispose();
            }
            if (a != null) {
                a.close();
            }
            if (b.get() != null) {
                b.get().close();
            }
            if (standby != null && standby != b.get()) {
                standby.close();
            }
        }
        checkDirectory(dir);
        try {
            Set<Thread> left = SoakThreads.leftSince(threadsBefore, Duration.ofSeconds(10));
            if (!left.isEmpty()) {
                ledger.violation("non-daemon threads left in the client: " + SoakThreads.names(left));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        balance();
        summary((System.nanoTime() - started) / 1e9, accountA, accountB);
    }

    private static Path privateShmDirectory() {
        try {
            return Files.createTempDirectory(Paths.get("/dev/shm"), "reactor-rdma-soak-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new PerfException("cannot create the run's shm directory under /dev/shm: " + e.getMessage(), e);
        }
    }

    /** A soak server's arguments; a standby one waits (classes loaded) until told to start: B's replacement, started ahead. */
    private List<String> serverArgs(Path dir, int which, boolean standby) {
        return List.of("--shm-dir", dir.toString(), "--seed", Long.toString(o.seed * 31 + which),
                "--cancel-share", Double.toString(o.receiveCancelShare), "--max-seconds", Long.toString(o.durationMillis / 1000 + 300),
                "--standby", Boolean.toString(standby));
    }

    private List<Thread> startSlots(RdmaResources client, ForkedPeer a, AtomicReference<ForkedPeer> b) {
        List<Thread> threads = new ArrayList<>();
        SplittableRandom seeds = new SplittableRandom(o.seed);
        for (int i = 0; i < o.connections; i++) {
            boolean onB = i % 8 == 7 || (o.connections < 8 && i == o.connections - 1);
            String name = "soak-conn-" + i + (onB ? "-B" : "-A");
            SplittableRandom random = seeds.split();
            Thread t = new Thread(() -> slot(name, client, random, () -> onB ? b.get() : a), name);
            t.start();
            threads.add(t);
        }
        return threads;
    }

    /** One slot: connection after connection until the run ends. */
    private void slot(String name, RdmaResources client, SplittableRandom random, java.util.function.Supplier<ForkedPeer> target) {
        int generation = 0;
        try {
            while (!stopping) {
                RdmaConnection c;
                try {
                    c = RdmaClient.create().host("127.0.0.1").port(target.get().port()).runOn(client)
                            .connectTimeout(Duration.ofSeconds(10)).connectNow();
                } catch (RuntimeException e) {
                    ledger.connectFailed(e);
                    Thread.sleep(250);
                    continue;
                }
                new SoakConnection(c, ledger, random.split(), name + "#" + generation++, o.pauseMillis).run(() -> stopping);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            ledger.violation(name + " failed: " + e);
            Log.failure(name + " failed", e);
        }
    }

    private void runFaults(long started, ForkedPeer a, AtomicReference<ForkedPeer> b, ForkedPeer standby, Path dir)
            throws InterruptedException {
        sleepUntil(started, o.durationMillis * 30 / 100);
        a.signal("STOP");
        long frozeAt = elapsedMillis(started);
        Thread.sleep(o.freezeMillis);
        a.signal("CONT");
        faults.add(String.format(Locale.ROOT, "froze server A (pid %d) with SIGSTOP at %.1f s for %d ms, then SIGCONT",
                a.pid(), frozeAt / 1000.0, o.freezeMillis));
        sleepUntil(started, o.durationMillis * 55 / 100);
        ForkedPeer dead = b.get();
        dead.kill();
        long killedAt = elapsedMillis(started);
        long filesLeft = filesOf(dir, dead.pid());
        standby.requestStart();
        standby.awaitReady();
        ForkedPeer restarted = standby;
        b.set(restarted);
        long readyAt = elapsedMillis(started);
        long filesAfter = filesOf(dir, dead.pid());
        faults.add(String.format(Locale.ROOT, "killed server B (pid %d) with SIGKILL at %.1f s (its %d shm files stayed); a new B (pid %d)"
                + " listened at %.1f s and left %d of them", dead.pid(), killedAt / 1000.0, filesLeft, restarted.pid(),
                readyAt / 1000.0, filesAfter));
        if (filesAfter != 0) {
            ledger.violation("the restarted server did not reclaim the killed server's " + filesAfter + " shm files");
        }
        sleepUntil(started, o.durationMillis);
    }

    /** Files of the contexts of process {@code pid} in {@code dir}. */
    private static long filesOf(Path dir, long pid) {
        try (Stream<Path> files = files(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(pid + "-")).count();
        }
    }

    private static long elapsedMillis(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }

    private static void sleepUntil(long started, long millis) throws InterruptedException {
        long left = millis - elapsedMillis(started);
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    /** Stops a server and checks its account: no damaged message, no live buffer, no thread left. */
    private String account(String which, ForkedPeer server) {
        server.requestStop();
        String account = server.awaitReport(PeerReporter.SOAK);
        Map<String, String> fields = new HashMap<>();
        for (String kv : account.split(" ")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                fields.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        if (!"0".equals(fields.get("liveBuffers"))) {
            ledger.violation("server " + which + "'s registered allocator holds " + fields.get("liveBuffers")
                    + " live buffers after close");
        }
        if (!"0".equals(fields.get("threadsLeft"))) {
            ledger.violation("server " + which + " left non-daemon threads: " + account);
        }
        if (!"0".equals(fields.get("corrupt"))) {
            ledger.violation("server " + which + " received " + fields.get("corrupt") + " damaged messages or direct writes");
        }
        return account;
    }

    private void checkDirectory(Path dir) {
        List<String> left;
        try (Stream<Path> files = files(dir)) {
            left = files.map(f -> f.getFileName().toString()).sorted().collect(Collectors.toList());
        }
        if (!left.isEmpty()) {
            ledger.violation(left.size() + " file(s) left in the run's shm directory " + dir + ": "
                    + left.subList(0, Math.min(10, left.size())));
            for (String f : left) {
                try {
                    Files.deleteIfExists(dir.resolve(f));
                } catch (IOException ignored) {
                    // reported above
                }
            }
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            ledger.violation("cannot remove the run's shm directory " + dir + ": " + e);
        }
    }

    private static Stream<Path> files(Path dir) {
        try {
            return Files.list(dir);
        } catch (IOException e) {
            return Stream.empty();
        }
    }

    /** Every message sent has exactly one fate: delivered intact, damaged, failed with a reported cause, cancelled, or lost. */
    private void balance() {
        long offered = ledger.offered.sum();
        long accounted = ledger.delivered.sum() + ledger.damaged.sum() + ledger.failedTotal() + ledger.cancelledUndelivered.sum()
                + ledger.lost.sum();
        if (offered != accounted) {
            ledger.violation("the account does not balance: " + offered + " messages sent, " + accounted + " accounted for");
        }
    }

    private void summary(double seconds, String accountA, String accountB) {
        Histogram lat = ledger.latencies();
        out.printf(Locale.ROOT, "soak: ran %.1f s; %d connections opened, connect failures %s%n", seconds, ledger.connections.sum(),
                SoakLedger.sorted(ledger.connectFailures));
        out.printf(Locale.ROOT, "messages: sent %d (%.1f MiB), delivered intact %d (%.1f MiB), damaged %d, lost %d%n",
                ledger.offered.sum(), ledger.offeredBytes.sum() / 1048576.0, ledger.delivered.sum(),
                ledger.deliveredBytes.sum() / 1048576.0, ledger.damaged.sum(), ledger.lost.sum());
        out.printf(Locale.ROOT, "cancels: %d sends cancelled (%d of their messages not delivered), %d receives cancelled by the server%n",
                ledger.sendCancels.sum(), ledger.cancelledUndelivered.sum(), ledger.receiveCancels.sum());
        out.printf(Locale.ROOT, "failed, reported to the sender: %d %s%n", ledger.failedTotal(), SoakLedger.sorted(ledger.failedByCause));
        out.printf(Locale.ROOT, "direct writes: %d, verified by the server %d, unconfirmed for a reported reason %d%n",
                ledger.directWrites.sum(), ledger.directWritesVerified.sum(), ledger.directWritesUnconfirmed.sum());
        if (lat.getTotalCount() > 0) {
            out.printf(Locale.ROOT, "latency send to receipt: p50 %d us, p99 %d us, max %d us%n", lat.getValueAtPercentile(50),
                    lat.getValueAtPercentile(99), lat.getMaxValue());
        }
        faults.forEach(f -> out.println("fault: " + f));
        out.println("server A: " + accountA);
        out.println("server B (restarted): " + accountB);
        long n = ledger.violationCount();
        if (n == 0) {
            out.println("soak: PASSED (no violation)");
        } else {
            out.println("soak: FAILED, " + n + " violation(s):");
            ledger.violations().forEach(v -> out.println("  " + v));
        }
        out.flush();
    }
}
