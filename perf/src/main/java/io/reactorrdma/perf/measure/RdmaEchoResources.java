package io.reactorrdma.perf.measure;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.verbs.soft.SoftContext;

/** The {@link RdmaResources} each end of the echo scenario runs on: one thread domain, idling as {@code --poll} says. */
public final class RdmaEchoResources {

    private RdmaEchoResources() {
    }

    /**
     * Resources named {@code name} on {@code provider} ({@code shm} or {@code loopback}) with one I/O
     * thread idling as {@link #idle(PollMode)} says; the {@code rdma.*} meters go to {@code registry}.
     */
    public static RdmaResources create(String name, String provider, PollMode poll, MeterRegistry registry) {
        return RdmaResources.builder(name).provider(provider).threads(1).idle(idle(poll)).metrics(registry).build();
    }

    /**
     * The I/O thread's idle strategy for {@code --poll}: {@code back-off} is the library's default
     * ({@link IdleStrategy#BACK_OFF}: spin some tens of microseconds while spinning pays, then sleep on completion notification),
     * {@code spin} busy-polls ({@link IdleStrategy#BUSY_SPIN}), {@code block} sleeps on completion notification
     * ({@link IdleStrategy#BLOCK}).
     */
    public static IdleStrategy idle(PollMode poll) {
        switch (poll) {
            case BACK_OFF:
                return IdleStrategy.BACK_OFF;
            case SPIN:
                return IdleStrategy.BUSY_SPIN;
            case BLOCK:
                return IdleStrategy.BLOCK;
            default:
                throw new IllegalArgumentException("no idle strategy for --poll " + poll.id());
        }
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
