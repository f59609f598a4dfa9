package io.reactorrdma.incast.sweep;

import io.reactorrdma.incast.Simulation;
import io.reactorrdma.incast.Workload;

/**
 * A workload that can be told to stop: after {@link #stop()} it passes no more events to the one it wraps, so that
 * workload posts nothing new and what it posted drains. For workloads that post only from their own events
 * ({@code onEvent}); completions are passed on.
 */
public final class StoppableWorkload implements Workload {

    private final Workload delegate;
    private boolean stopped;

    public StoppableWorkload(Workload delegate) {
        this.delegate = delegate;
    }

    /** From now on the wrapped workload gets no event. */
    public void stop() {
        stopped = true;
    }

    @Override
    public void start(Simulation sim) {
        if (!stopped) {
            delegate.start(sim);
        }
    }

    @Override
    public void onEvent(Simulation sim, int a, int b) {
        if (!stopped) {
            delegate.onEvent(sim, a, b);
        }
    }

    /** Completions always reach the wrapped workload: they report what it posted, and post nothing by themselves here. */
    @Override
    public void onComplete(Simulation sim, int flow) {
        delegate.onComplete(sim, flow);
    }
}
