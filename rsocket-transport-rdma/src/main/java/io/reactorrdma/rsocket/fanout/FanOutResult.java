package io.reactorrdma.rsocket.fanout;

import io.rsocket.Payload;

import java.util.Collections;
import java.util.Map;

/**
 * What {@link FanOut#requestResponseAll} returns: the answers of the shards that answered and the
 * error of each that did not (its failure, or a {@link FanOutException} for the deadline), both in
 * the shards' order. The answers are the caller's to release: {@link #release()} releases them all.
 *
 * @param <K> the shard key
 */
public final class FanOutResult<K> {

    private final Map<K, Payload> answers;
    private final Map<K, Throwable> errors;

    FanOutResult(Map<K, Payload> answers, Map<K, Throwable> errors) {
        this.answers = Collections.unmodifiableMap(answers);
        this.errors = Collections.unmodifiableMap(errors);
    }

    /** The answers by shard, in the shards' order; the payloads are the caller's to release. */
    public Map<K, Payload> answers() {
        return answers;
    }

    /** Why each shard that did not answer did not, in the shards' order; empty when all answered. */
    public Map<K, Throwable> errors() {
        return errors;
    }

    /** True when every shard answered. */
    public boolean isComplete() {
        return errors.isEmpty();
    }

    /** Releases every answer still held (each once; releasing again does nothing). */
    public void release() {
        for (Payload p : answers.values()) {
            if (p.refCnt() > 0) {
                p.release();
            }
        }
    }

    @Override
    public String toString() {
        return "FanOutResult{answered=" + answers.keySet() + ", failed=" + errors.keySet() + "}";
    }
}
