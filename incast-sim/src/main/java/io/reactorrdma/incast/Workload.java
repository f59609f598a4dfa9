package io.reactorrdma.incast;

/**
 * Generates messages over simulated time: the simulation calls {@link #onEvent} for each event the workload scheduled
 * with {@link Simulation#scheduleWorkload}, and the workload posts messages with {@link Simulation#post}; it hears of
 * each completed message through {@link #onComplete} (the trainers' barrier,
 * {@link io.reactorrdma.incast.workload.TrainerWorkload}).
 */
public interface Workload {

    /** Called once before the first event. */
    void start(Simulation sim);

    /** A workload event scheduled earlier fires; {@code a} and {@code b} are what was scheduled. */
    void onEvent(Simulation sim, int a, int b);

    /** A message of {@code flow} completed: the ACK of its last packet reached the sender. Default: nothing. */
    default void onComplete(Simulation sim, int flow) {
    }
}
