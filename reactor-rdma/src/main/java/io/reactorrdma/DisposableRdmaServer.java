package io.reactorrdma;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.time.Duration;

/** A bound {@link RdmaServer}. */
public interface DisposableRdmaServer extends Disposable {

    /** The bound address; the real port when 0 was asked for. */
    InetSocketAddress address();

    default int port() {
        return address().getPort();
    }

    /** Completes when the server stopped listening. */
    Mono<Void> onDispose();

    /** Disposes and waits at most {@code timeout} for the listener to stop. */
    default void disposeNow(Duration timeout) {
        dispose();
        onDispose().block(timeout);
    }
}
