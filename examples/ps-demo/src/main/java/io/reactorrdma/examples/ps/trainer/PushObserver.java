package io.reactorrdma.examples.ps.trainer;

/**
 * Sees every push: its time from handing the batch to the push stream to the shard's ack, and its
 * size. Called on the thread that delivered the ack: keep it short and allocation-free.
 */
@FunctionalInterface
public interface PushObserver {

    /** An observer that records nothing. */
    PushObserver NONE = (nanos, bytes) -> { };

    void onPush(long nanos, long bytes);
}
