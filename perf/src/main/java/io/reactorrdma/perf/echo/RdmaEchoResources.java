package io.reactorrdma.perf.echo;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.engine.IdleStrategy;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.verbs.soft.SoftContext;

/** The {@link RdmaResources} each end of the echo scenario runs on: one thread domain, idling as {@code --poll} says. */
public final class RdmaEchoResources {

    private RdmaEchoResources() {
    }

    /**
     * Resources named {@code name} on {@code provider} ({@code shm} or {@code loopback}) with one I/O
     * thread: {@code spin} busy-polls ({@link IdleStrategy#BUSY_SPIN}), {@code block} sleeps on
     * completion notification ({@link IdleStrategy#BLOCK}); the {@code rdma.*} meters go to {@code registry}.
     */
    public static RdmaResources create(String name, String provider, PollMode poll, MeterRegistry registry) {
        return RdmaResources.builder(name).provider(provider).threads(1)
                .idle(poll == PollMode.SPIN ? IdleStrategy.BUSY_SPIN : IdleStrategy.BLOCK)
                .metrics(registry).build();
    }

    /**
     * The CPU of the threads that carry these resources' traffic: its I/O thread and the soft
     * provider's thread of its context (which wakes blocked completion queues).
     */
    public static CpuMeter threadsCpu(RdmaResources resources) {
        String provider = resources.context() instanceof SoftContext
                ? "reactor-rdma-" + resources.context().providerName() + "-" + ((SoftContext) resources.context()).id()
                : resources.name() + "-io-";
        return CpuMeter.threadsNamed(resources.name() + "-io-", provider);
    }
}
