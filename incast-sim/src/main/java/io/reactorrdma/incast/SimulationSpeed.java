package io.reactorrdma.incast;

import io.reactorrdma.incast.dcqcn.DcqcnConfig;
import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;

/**
 * The simulator's speed on one core, in events per second of wall time: a Poisson incast (64 senders, one receiver,
 * 8 KiB messages at 90 % load, PFC on), the same with DCQCN's defaults, and the bare event queue. Run with
 * {@code java -cp perf/target/classes:<HdrHistogram jar> io.reactorrdma.incast.SimulationSpeed [messages]}.
 */
public final class SimulationSpeed {

    /** Messages posted by the incast run unless given. */
    public static final long DEFAULT_MESSAGES = 200_000;
    /** Senders in the incast run. */
    public static final int DEFAULT_SENDERS = 64;
    /** Offered load on the receiver's link. */
    public static final double DEFAULT_LOAD = 0.9;
    /** Events in the bare queue run. */
    public static final int DEFAULT_QUEUE_EVENTS = 20_000_000;

    private SimulationSpeed() {
    }

    /** Prints events/s for the incast run and for the bare queue (a warm-up round first). */
    public static void main(String[] args) {
        long messages = args.length > 0 ? Long.parseLong(args[0]) : DEFAULT_MESSAGES;
        for (int round = 0; round < 2; round++) {
            String label = round == 0 ? "warm-up" : "measured";
            for (DcqcnConfig dcqcn : new DcqcnConfig[] {DcqcnConfig.off(), DcqcnConfig.defaults()}) {
                long start = System.nanoTime();
                Simulation sim = incast(messages, dcqcn);
                long events = sim.run();
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf("%s incast%s: %d events in %.3f s = %.2f M events/s (%d messages, %.3f ms "
                                + "simulated, %d XOFF, %d ECN marks, %d CNPs, p99 %.1f µs)%n", label,
                        dcqcn.enabled() ? " with DCQCN" : "", events, seconds, events / seconds / 1e6,
                        sim.completions(), sim.nowPs() / 1e9, sim.xoffTotal(), sim.ecnMarks(), sim.cnps(),
                        sim.completionPs().getValueAtPercentile(99) / 1e6);
            }
            long start = System.nanoTime();
            long sink = queueChurn(DEFAULT_QUEUE_EVENTS);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("%s queue: %d events in %.3f s = %.2f M events/s (checksum %d)%n", label,
                    DEFAULT_QUEUE_EVENTS, seconds, DEFAULT_QUEUE_EVENTS / seconds / 1e6, sink);
        }
    }

    static Simulation incast(long messages, DcqcnConfig dcqcn) {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(DEFAULT_SENDERS + 1))
                .congestionControl(dcqcn, 1);
        int[] flows = new int[DEFAULT_SENDERS];
        for (int h = 0; h < DEFAULT_SENDERS; h++) {
            flows[h] = sim.addFlow(h, DEFAULT_SENDERS);
        }
        int bytes = 8 * 1024;
        long wirePs = sim.config().serializationPs(8L * (sim.config().mtuBytes() + sim.config().headerBytes()));
        sim.workload(new PoissonWorkload(flows, bytes, DEFAULT_SENDERS * wirePs / DEFAULT_LOAD, messages, 1));
        return sim;
    }

    /** A queue of 64 K pending events, one pop and one push per event (about the size of a paper-scale run's). */
    static long queueChurn(int events) {
        EventQueue queue = new EventQueue();
        for (int i = 0; i < 65_536; i++) {
            queue.push(i, 0, i, 0);
        }
        long sum = 0;
        for (int i = 0; i < events; i++) {
            queue.pop();
            sum += queue.a();
            queue.push(queue.time() + 1 + (i & 65_535), 0, i, 0);
        }
        return sum;
    }
}
