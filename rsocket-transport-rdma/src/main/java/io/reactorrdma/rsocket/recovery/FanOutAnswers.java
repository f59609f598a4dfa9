package io.reactorrdma.rsocket.recovery;

import io.rsocket.Payload;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The answers of one {@link FanOut} call while it runs. Answers never travel through Reactor
 * operators (which could drop them unreleased); they wait here until handed over whole, and
 * whatever is here when the call ends otherwise — failure, deadline, cancellation — is released,
 * as is any answer that arrives after that.
 */
final class FanOutAnswers<K> {

    private final List<K> shards;
    private final Map<K, Payload> answers = new LinkedHashMap<>();
    private final Map<K, Throwable> errors = new LinkedHashMap<>();
    private boolean closed;

    FanOutAnswers(Collection<K> shards) {
        this.shards = List.copyOf(shards);
    }

    synchronized void answer(K shard, Payload p) {
        if (closed) {
            p.release();
            return;
        }
        Payload previous = answers.put(shard, p);
        if (previous != null) {
            previous.release(); // a request-response answers once; never lose a buffer if a client misbehaves
        }
    }

    synchronized void failed(K shard, Throwable t) {
        if (!closed) {
            errors.put(shard, t);
        }
    }

    /** The shards that neither answered nor failed yet, in the shards' order. */
    synchronized List<K> pending() {
        List<K> pending = new ArrayList<>();
        for (K k : shards) {
            if (!answers.containsKey(k) && !errors.containsKey(k)) {
                pending.add(k);
            }
        }
        return pending;
    }

    /** Hands every answer over in the shards' order; later answers are released. */
    synchronized Map<K, Payload> takeAnswers() {
        closed = true;
        HandedOver<K> out = new HandedOver<>();
        for (K k : shards) {
            Payload p = answers.get(k);
            if (p != null) {
                out.put(k, p);
            }
        }
        answers.clear();
        return out;
    }

    /** Hands answers and errors over in the shards' order; later answers are released. */
    synchronized FanOutResult<K> takeResult() {
        closed = true;
        return new FanOutResult<>(ordered(answers), ordered(errors));
    }

    /** The call ended without handing over: release what is here and what comes later. */
    synchronized void releaseAll() {
        closed = true;
        for (Payload p : answers.values()) {
            p.release();
        }
        answers.clear();
    }

    /**
     * The answers as handed over: its own type, so that the operators after the hand-over can
     * release it when they drop it (the caller cancelled as it was handed over).
     */
    static final class HandedOver<K> extends LinkedHashMap<K, Payload> {
        private static final long serialVersionUID = 1L;

        /** Releases every answer in it (a map dropped on its way to the caller). */
        void release() {
            for (Payload p : values()) {
                if (p.refCnt() > 0) {
                    p.release();
                }
            }
        }
    }

    private <V> Map<K, V> ordered(Map<K, V> from) {
        Map<K, V> out = new LinkedHashMap<>();
        for (K k : shards) {
            V v = from.get(k);
            if (v != null) {
                out.put(k, v);
            }
        }
        from.clear();
        return out;
    }
}
