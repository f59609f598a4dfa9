package io.reactorrdma.rsocket.fallback;

import io.reactorrdma.verbs.ProviderUnavailableException;
import io.rsocket.DuplexConnection;
import io.rsocket.transport.ClientTransport;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A client transport for tests: while closed its connects fail as an RDMA provider that cannot
 * open does; it records every connection it made.
 */
final class GatedTransport implements ClientTransport {

    final AtomicBoolean open;
    final List<DuplexConnection> connections = new CopyOnWriteArrayList<>();
    private final ClientTransport delegate;

    GatedTransport(ClientTransport delegate, boolean open) {
        this.delegate = delegate;
        this.open = new AtomicBoolean(open);
    }

    @Override
    public Mono<DuplexConnection> connect() {
        return Mono.defer(() -> open.get() ? delegate.connect().doOnNext(connections::add)
                : Mono.error(new ProviderUnavailableException("the test keeps this provider closed")));
    }

    @Override
    public int maxFrameLength() {
        return delegate.maxFrameLength();
    }

    @Override
    public String toString() {
        return "Gated{" + delegate + "}";
    }
}
