package io.reactorrdma.rsocket.fanout;

import io.rsocket.Payload;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The answers of one {@link FanOut} call while it runs. Answers never travel through Reactor
 * operators (which could drop them unreleased); they wait here until handed over whole, and
 * whatever is here when the call ends otherwise — failure, deadline, cancellation — is released,
 * as is any answer that arrives after that.
 *
 * <p>Lock-free: answers arrive on the transports' I/O threads. Each shard has a slot; an answer
 * and the end of the call both take the slot's content with an atomic swap, so whichever comes
 * second finds the other's mark ({@link #closed} is written before the end sweeps the slots, and
 * read by an answer after it filled its slot), and each answer is handed over or released once.
 */
final class FanOutAnswers<K> {

    private final List<K> shards;
    private final Map<K, Integer> index;
    private final AtomicReferenceArray<Payload> answers;
    private final AtomicReferenceArray<Throwable> errors;
    private volatile boolean closed;

    FanOutAnswers(Collection<K> shards) {
        this.shards = List.copyOf(shards);
        this.index = new HashMap<>(this.shards.size() * 2);
        for (int i = 0; i < this.shards.size(); i++) {
            index.put(this.shards.get(i), i);
        }
        this.answers = new AtomicReferenceArray<>(this.shards.size());
        this.errors = new AtomicReferenceArray<>(this.shards.size());
    }

    void answer(K shard, Payload p) {
        int i = index.get(shard);
        Payload previous = answers.getAndSet(i, p);
        if (previous != null) {
            previous.release(); // a request-response answers once; never lose a buffer if a client misbehaves
        }
        if (closed) {
            Payload late = answers.getAndSet(i, null); // null when the end's sweep took it
            if (late != null) {
                late.release();
            }
        }
    }

    void failed(K shard, Throwable t) {
        if (!closed) {
            errors.set(index.get(shard), t);
        }
    }

    /** The shards that neither answered nor failed yet, in the shards' order. */
    List<K> pending() {
        List<K> pending = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            if (answers.get(i) == null && errors.get(i) == null) {
                pending.add(shards.get(i));
            }
        }
        return pending;
    }

    /** Hands every answer over in the shards' order; later answers are released. */
    Map<K, Payload> takeAnswers() {
        closed = true;
        return take();
    }

    /** Hands answers and errors over in the shards' order; later answers are released. */
    FanOutResult<K> takeResult() {
        closed = true;
        Map<K, Throwable> failures = new LinkedHashMap<>();
        for (int i = 0; i < shards.size(); i++) {
            Throwable t = errors.get(i);
            if (t != null) {
                failures.put(shards.get(i), t);
            }
        }
        return new FanOutResult<>(take(), failures);
    }

    /** The call ended without handing over: release what is here and what comes later. */
    void releaseAll() {
        closed = true;
        for (int i = 0; i < shards.size(); i++) {
            Payload p = answers.getAndSet(i, null);
            if (p != null) {
                p.release();
            }
        }
    }

    /** After {@link #closed}: the answers, each taken out of its slot. */
    private HandedOver<K> take() {
        HandedOver<K> out = new HandedOver<>();
        for (int i = 0; i < shards.size(); i++) {
            Payload p = answers.getAndSet(i, null);
            if (p != null) {
                out.put(shards.get(i), p);
            }
        }
        return out;
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
}
