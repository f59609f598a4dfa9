package io.reactorrdma.examples.ps.demo.measure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/** Parsing a thread's {@code status}, reading a {@code /proc} tree, and the switches between two reads. */
class ThreadSwitchesTest {

    /** A thread's status as Linux 6.x writes it (shortened in the middle). */
    private static final String STATUS = """
            Name:\tshard-0-io-0
            Umask:\t0022
            State:\tS (sleeping)
            Tgid:\t4242
            Pid:\t4250
            PPid:\t4100
            VmRSS:\t  181244 kB
            Threads:\t31
            SigQ:\t0/63453
            Cpus_allowed_list:\t0-1
            Mems_allowed_list:\t0
            voluntary_ctxt_switches:\t15230
            nonvoluntary_ctxt_switches:\t87
            """;

    @TempDir
    Path proc;

    @Test
    void statusGivesVoluntaryPlusInvoluntarySwitches() {
        assertThat(ThreadSwitches.parseStatus(STATUS)).isEqualTo(15230 + 87);
        assertThat(ThreadSwitches.parseStatus("voluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t0\n")).isZero();
    }

    @Test
    void statusWithoutBothCountersIsUnknown() {
        assertThat(ThreadSwitches.parseStatus(STATUS.replace("nonvoluntary_ctxt_switches:\t87\n", ""))).isEqualTo(-1);
        // "nonvoluntary_..." contains "voluntary_...": the voluntary count must come from its own line
        assertThat(ThreadSwitches.parseStatus(STATUS.replace("voluntary_ctxt_switches:\t15230\nnon", "non"))).isEqualTo(-1);
        assertThat(ThreadSwitches.parseStatus(STATUS.replace("15230", "lots"))).isEqualTo(-1);
        assertThat(ThreadSwitches.parseStatus("")).isEqualTo(-1);
    }

    @Test
    void readsEveryThreadOfATaskDirectoryAndSkipsOnesThatEnded() throws IOException {
        task("4242", 4242, "java", 10, 2);
        task("4242", 4250, "shard-0-io-0", 15230, 87);
        Files.createDirectories(proc.resolve("4242/task/4251")); // ended: its files are gone
        Files.createDirectories(proc.resolve("4242/task/not-a-tid"));

        ThreadSwitches.Snapshot s = new ThreadSwitches(proc).read("4242").orElseThrow();

        assertThat(s.threads()).isEqualTo(Map.of(4242L, new ThreadSwitches.Thread("java", 12),
                4250L, new ThreadSwitches.Thread("shard-0-io-0", 15317)));
    }

    @Test
    void aProcessThatCannotBeReadIsUnknownNotZero() throws IOException {
        assertThat(new ThreadSwitches(proc).read("999")).isEmpty();
        assertThat(new ThreadSwitches(proc.resolve("no-proc-here")).read("self")).isEmpty();
        task("7", 7, "java", 1, 1);
        Files.writeString(proc.resolve("7/task/7/status"), "Name:\tjava\n"); // a kernel without the counters
        assertThat(new ThreadSwitches(proc).read("7")).isEmpty();
    }

    @Test
    void switchesSinceCountGrowthNewThreadsWholeAndLeaveEndedOnesOut() {
        ThreadSwitches.Snapshot before = new ThreadSwitches.Snapshot(Map.of(
                1L, new ThreadSwitches.Thread("java", 100),
                2L, new ThreadSwitches.Thread("reactor-tcp-epo", 1000),
                3L, new ThreadSwitches.Thread("ended", 50),
                4L, new ThreadSwitches.Thread("old-owner", 900)));
        ThreadSwitches.Snapshot after = new ThreadSwitches.Snapshot(Map.of(
                1L, new ThreadSwitches.Thread("java", 103),
                2L, new ThreadSwitches.Thread("reactor-tcp-epo", 1040),
                4L, new ThreadSwitches.Thread("reactor-tcp-nio", 5), // tid 4 reused by a new thread
                5L, new ThreadSwitches.Thread("new-thread", 7)));

        Switches s = after.since(before, ThreadNames.startingWith("reactor-tcp-"));

        assertThat(s).isEqualTo(new Switches(3 + 40 + 5 + 7, 40 + 5));
    }

    @Test
    void aWindowSumsItsProcessesAndIsUnknownWhenOneIsMissing() throws IOException {
        task("10", 10, "java", 5, 0);
        task("10", 11, "ps-demo-io-0", 100, 1);
        task("20", 20, "java", 7, 0);
        ThreadSwitches source = new ThreadSwitches(proc);
        SwitchWindow w = SwitchWindow.open(source, List.of("10", "20"), ThreadNames.startingWith("ps-demo-io-"));
        task("10", 11, "ps-demo-io-0", 130, 3);
        task("20", 20, "java", 9, 1);
        task("20", 21, "ps-demo-io-1", 4, 0);
        assertThat(w.close()).isEqualTo(new Switches(32 + 3 + 4, 32 + 4));

        SwitchWindow gone = SwitchWindow.open(source, List.of("10", "30"), ThreadNames.startingWith("ps-demo-io-"));
        assertThat(gone.close()).isEqualTo(Switches.UNKNOWN);
        assertThat(SwitchWindow.open(source, List.of(), ThreadNames.startingWith("x")).close()).isEqualTo(Switches.UNKNOWN);
    }

    @Test
    void thisJvmsThreadWithALongNameIsFoundInProcAndItsSleepsCounted() throws Exception {
        assumeThat(Files.isDirectory(Path.of("/proc/self/task"))).as("Linux /proc").isTrue();
        String name = "ps-demo-switches-probe-7"; // 24 characters: Linux shows "ps-demo-switche"
        ThreadNames probe = ThreadNames.startingWith("ps-demo-switches-probe-");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            started.countDown();
            try {
                go.await();
                for (int i = 0; i < 20; i++) {
                    Thread.sleep(1); // each sleep blocks: at least one voluntary switch
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        t.start();
        started.await();
        SwitchWindow w = SwitchWindow.open(ThreadSwitches.PROC, List.of("self"), probe);
        ThreadSwitches.Snapshot now = ThreadSwitches.PROC.read("self").orElseThrow();
        assertThat(now.threads().values()).filteredOn(th -> probe.test(th.comm())).hasSize(1)
                .allSatisfy(th -> assertThat(th.comm()).isEqualTo("ps-demo-switche"));
        go.countDown();
        t.join();
        // Thread.join() returns before Linux reaps the task: wait until /proc no longer lists it
        awaitNoTaskNamed(probe);
        // the probe ended before the second read: its switches are left out, so keep it alive next time
        assertThat(w.close().io()).isZero();

        CountDownLatch slept = new CountDownLatch(1);
        Thread alive = new Thread(() -> {
            try {
                for (int i = 0; i < 20; i++) {
                    Thread.sleep(1);
                }
                slept.countDown();
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        SwitchWindow w2 = SwitchWindow.open(ThreadSwitches.PROC, List.of("self"), probe);
        alive.start();
        assertThat(slept.await(60, TimeUnit.SECONDS)).isTrue();
        Switches s = w2.close();
        alive.interrupt();
        alive.join();
        assertThat(s.io()).isGreaterThanOrEqualTo(20);
        assertThat(s.all()).isGreaterThan(s.io());
    }

    /** Waits, up to a minute, until no thread of this process that {@code names} matches is listed in /proc. */
    private static void awaitNoTaskNamed(ThreadNames names) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ThreadSwitches.PROC.read("self").orElseThrow().threads().values().stream()
                .anyMatch(th -> names.test(th.comm()))) {
            assertThat(System.nanoTime()).as("the ended probe thread left /proc").isLessThan(deadline);
            Thread.sleep(1); // a condition poll: Linux gives no signal when a task is reaped
        }
    }

    /** Writes thread {@code tid} of process {@code pid}: its comm (with the newline Linux adds) and a status. */
    private void task(String pid, long tid, String comm, long voluntary, long involuntary) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(pid).resolve("task").resolve(Long.toString(tid)));
        Files.writeString(dir.resolve("comm"), comm + "\n");
        Files.writeString(dir.resolve("status"), STATUS.replace("Name:\tshard-0-io-0", "Name:\t" + comm)
                .replace("15230", Long.toString(voluntary)).replace("\t87", "\t" + involuntary));
    }
}
