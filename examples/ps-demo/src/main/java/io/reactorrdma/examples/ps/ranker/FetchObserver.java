package io.reactorrdma.examples.ps.ranker;

/**
 * Sees every model's fetch: the whole fan-out's time (from sending to the last shard's answer) and
 * the bytes of all its replies. Called on the thread that delivered the last answer: keep it short
 * and allocation-free (e.g. record into a Recorder from HdrHistogram).
 */
@FunctionalInterface
public interface FetchObserver {

    /** An observer that records nothing. */
    FetchObserver NONE = (nanos, replyBytes) -> { };

    void onFetch(long nanos, long replyBytes);
}
