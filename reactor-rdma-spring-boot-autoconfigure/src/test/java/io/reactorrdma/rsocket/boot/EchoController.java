package io.reactorrdma.rsocket.boot;

import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.messaging.rsocket.annotation.ConnectMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.concurrent.atomic.AtomicInteger;

/** The test application's handlers: one per RSocket interaction model, JSON in and out. */
@Controller
class EchoController {

    record Request(String name, int count) {
    }

    record Reply(String greeting, int index) {
    }

    final Sinks.Many<String> fireAndForgets = Sinks.many().replay().all();
    final AtomicInteger connects = new AtomicInteger();

    @ConnectMapping
    Mono<Void> connect() {
        connects.incrementAndGet();
        return Mono.empty();
    }

    @MessageMapping("greet")
    Mono<Reply> greet(Request request) {
        return Mono.just(new Reply("hello " + request.name(), request.count()));
    }

    @MessageMapping("count")
    Flux<Reply> count(Request request) {
        return Flux.range(0, request.count()).map(i -> new Reply(request.name(), i));
    }

    @MessageMapping("shout")
    Flux<Reply> shout(Flux<Request> requests) {
        return requests.map(r -> new Reply(r.name().toUpperCase(java.util.Locale.ROOT), r.count()));
    }

    @MessageMapping("note")
    Mono<Void> note(Request request) {
        fireAndForgets.tryEmitNext(request.name());
        return Mono.empty();
    }
}
