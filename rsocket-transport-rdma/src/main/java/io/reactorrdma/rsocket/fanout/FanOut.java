package io.reactorrdma.rsocket.fanout;

import io.rsocket.Payload;
import io.rsocket.core.RSocketClient;
import io.rsocket.util.EmptyPayload;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The parameter-server pattern: one request-response to each of many shards, in parallel, under
 * one deadline. Each shard is any {@link RSocketClient} — a replicated shard client that balances,
 * retries and hedges over its replicas, or {@code RSocketClient.from(rsocket)} — so a failure that
 * reaches the fan-out is one the shard could not recover from.
 *
 * <pre>{@code
 * Mono<Map<Integer, Payload>> gradients = FanOut.requestResponse(shards,
 *         shard -> ByteBufPayload.create(keysOf(shard)), Duration.ofMillis(200));
 * }</pre>
 *
 * <p>Policies. {@link #requestResponse} is fail-fast: it completes with every shard's answer, or
 * with the first failure (a {@link FanOutException} naming the shard, the shard's error as cause),
 * or at the deadline with a {@link FanOutException} naming every shard that had not answered; the
 * other shards' requests are then cancelled (RSocket sends CANCEL) and the answers already in are
 * released. {@link #requestResponseAll} returns partial results: it waits for every shard until the
 * deadline and completes with the answers and, per shard, the error of each that failed or timed
 * out. A shard whose request-response completes without a value (its responder returned
 * {@code Mono.empty()}) answered: its answer is {@link EmptyPayload#INSTANCE} (no data, no metadata;
 * releasing it does nothing). Nothing is retried here (the shard clients do that). Subscribing again sends again. Reactor
 * context written downstream ({@code contextWrite}, e.g. per-call options) reaches every shard call.
 */
public final class FanOut {

    private static final Logger LOG = Loggers.getLogger(FanOut.class);

    private FanOut() {
    }

    /**
     * Sends {@code request.apply(shard)} to every shard at once, fail-fast (see the class comment).
     * Requests are built only when sent; answers come in the shards' iteration order and are the
     * caller's to release. No shards: an empty map.
     *
     * @param deadline for the whole call, from subscription; positive
     */
    public static <K> Mono<Map<K, Payload>> requestResponse(Map<K, ? extends RSocketClient> shards,
                                                            Function<? super K, ? extends Payload> request, Duration deadline) {
        check(shards, request, deadline);
        return Mono.defer(() -> {
            FanOutAnswers<K> answers = new FanOutAnswers<>(shards.keySet());
            return Flux.fromIterable(shards.entrySet())
                    .flatMap(e -> call(e.getKey(), e.getValue(), request)
                            .doOnNext(p -> answers.answer(e.getKey(), p))
                            .then()
                            .onErrorMap(t -> failed(e.getKey(), t, shards.size())), Math.max(1, shards.size()))
                    .then()
                    // The deadline covers the calls, not the hand-over: behind timeout() a map handed over
                    // as the deadline fires would be dropped (a late onNext) with its answers unreleased.
                    .timeout(deadline, Mono.defer(() -> Mono.error(timedOut(answers.pending(), deadline, shards.size()))))
                    .then(Mono.fromCallable(answers::takeAnswers))
                    .doOnDiscard(FanOutAnswers.HandedOver.class, FanOutAnswers.HandedOver::release) // handed over as the caller cancels
                    .doFinally(signal -> answers.releaseAll()); // after a hand-over there is nothing left to release
        });
    }

    /**
     * Sends {@code request.apply(shard)} to every shard at once and waits for all of them until
     * {@code deadline}, keeping partial results (see the class comment): never fails because of a
     * shard; the {@link FanOutResult}'s answers are the caller's to release.
     *
     * @param deadline for every shard, from subscription; positive
     */
    public static <K> Mono<FanOutResult<K>> requestResponseAll(Map<K, ? extends RSocketClient> shards,
                                                              Function<? super K, ? extends Payload> request, Duration deadline) {
        check(shards, request, deadline);
        return Mono.defer(() -> {
            FanOutAnswers<K> answers = new FanOutAnswers<>(shards.keySet());
            return Flux.fromIterable(shards.entrySet())
                    .flatMap(e -> call(e.getKey(), e.getValue(), request)
                            .doOnNext(p -> answers.answer(e.getKey(), p))
                            .then()
                            .timeout(deadline, Mono.defer(() -> Mono.error(timedOut(List.of(e.getKey()), deadline, shards.size()))))
                            .onErrorResume(t -> {
                                LOG.debug("fan-out: shard {} gave no answer: {}", e.getKey(), t.toString());
                                answers.failed(e.getKey(), t);
                                return Mono.empty();
                            }), Math.max(1, shards.size()))
                    .then(Mono.fromCallable(answers::takeResult))
                    .doOnDiscard(FanOutResult.class, FanOutResult::release) // handed over as the caller cancels
                    .doFinally(signal -> answers.releaseAll());
        });
    }

    /** One shard's call; an empty answer (legal in RSocket: a responder's {@code Mono.empty()}) is {@link EmptyPayload#INSTANCE}. */
    private static <K> Mono<Payload> call(K shard, RSocketClient client, Function<? super K, ? extends Payload> request) {
        return client.requestResponse(Mono.fromSupplier(() -> Objects.requireNonNull(request.apply(shard),
                () -> "the request function returned null for shard " + shard + "; return a Payload")))
                .defaultIfEmpty(EmptyPayload.INSTANCE);
    }

    private static FanOutException failed(Object shard, Throwable cause, int of) {
        if (cause instanceof FanOutException) {
            return (FanOutException) cause;
        }
        LOG.debug("fan-out: shard {} failed, cancelling the other {}: {}", shard, of - 1, String.valueOf(cause));
        return new FanOutException("shard " + shard + " failed: " + cause, List.of(shard), false, cause);
    }

    private static FanOutException timedOut(List<?> shards, Duration deadline, int of) {
        LOG.debug("fan-out: shards {} did not answer within {} ms", shards, deadline.toMillis());
        return new FanOutException((shards.size() == 1 ? "shard " + shards.get(0) : "shards " + shards) + " of " + of
                + " did not answer within " + deadline.toMillis() + " ms", shards, true,
                new TimeoutException("fan-out deadline " + deadline.toMillis() + " ms"));
    }

    private static void check(Map<?, ? extends RSocketClient> shards, Function<?, ? extends Payload> request, Duration deadline) {
        Objects.requireNonNull(shards, "shards");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(deadline, "deadline");
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline must be positive, was " + deadline + "; pass the time the whole fan-out may take");
        }
        shards.forEach((k, c) -> {
            if (c == null) {
                throw new NullPointerException("shard " + k + " has no client; every shard needs an RSocketClient");
            }
        });
    }
}
