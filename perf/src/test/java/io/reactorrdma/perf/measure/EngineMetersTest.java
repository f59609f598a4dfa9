package io.reactorrdma.perf.measure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.perf.cli.PerfException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EngineMetersTest {

    @Test
    void sumsDomainsTravelsAsTextAndSubtracts() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicLong a = new AtomicLong(10);
        AtomicLong b = new AtomicLong(5);
        AtomicLong posts = new AtomicLong(40);
        AtomicLong signaled = new AtomicLong(20);
        FunctionCounter.builder("rdma.doorbells", a, AtomicLong::get).tag("domain", "0").register(registry);
        FunctionCounter.builder("rdma.doorbells", b, AtomicLong::get).tag("domain", "1").register(registry);
        FunctionCounter.builder("rdma.posts", posts, AtomicLong::get).register(registry);
        FunctionCounter.builder("rdma.posts.signaled", signaled, AtomicLong::get).register(registry);
        AtomicLong waits = new AtomicLong(3);
        FunctionCounter.builder("rdma.idle.waits", waits, AtomicLong::get).register(registry);
        AtomicLong spins = new AtomicLong(0);
        AtomicLong paid = new AtomicLong(0);
        AtomicLong skipped = new AtomicLong(1);
        FunctionCounter.builder("rdma.idle.spins", spins, AtomicLong::get).register(registry);
        FunctionCounter.builder("rdma.idle.spins.paid", paid, AtomicLong::get).register(registry);
        FunctionCounter.builder("rdma.idle.spins.skipped", skipped, AtomicLong::get).register(registry);
        EngineMeters before = EngineMeters.parse(EngineMeters.snapshot(registry).format());
        assertThat(before.get("rdma.doorbells")).isEqualTo(15);
        assertThat(before.get("rdma.rnr")).as("not registered reads 0").isZero();
        a.addAndGet(20);
        posts.addAndGet(40);
        signaled.addAndGet(10);
        waits.addAndGet(5);
        spins.addAndGet(4);
        paid.addAndGet(3);
        skipped.addAndGet(2);
        EngineMeters delta = EngineMeters.snapshot(registry).minus(before);
        assertThat(delta.get("rdma.doorbells")).isEqualTo(20);
        assertThat(delta.describe(10)).contains("10 messages sent", "2.000 doorbells/msg", "4.000 posts/msg", "signaled 25.0% of posts",
                "RNR 0", "block registrations 0",
                "idle waits 0.500/msg", "full spins 0.400/msg (75% paid), skipped spins 0.200/msg");
        assertThat(EngineMeters.NONE.describe(10)).isEqualTo("no engine meters");
    }

    @Test
    void aGarbledReportSaysSo() {
        assertThatThrownBy(() -> EngineMeters.parse("rdma.doorbells=1 junk")).isInstanceOf(PerfException.class)
                .hasMessageContaining("junk");
        assertThatThrownBy(() -> EngineMeters.parse("rdma.doorbells=x")).isInstanceOf(PerfException.class)
                .hasMessageContaining("non-number");
    }
}
