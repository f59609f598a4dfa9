package io.reactorrdma.rsocket.shard;

import io.rsocket.DuplexConnection;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.transport.ClientTransport;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link RSocketConnector#connect(ClientTransport)} that a cancel (a timeout, a dispose) cannot cut
 * while RSocket sets the connection up.
 *
 * <p>Why: RSocket-Java 1.1.5's connector sends SETUP (a retained slice of the frame) and only then
 * subscribes the step that takes the connection and releases the frame's other reference (in its
 * {@code doFinally}). A cancel that lands between the two (a timeout firing on another thread just
 * as the transport's connection arrived) closes the connection but never runs that step: the SETUP
 * frame keeps one reference, over RDMA one registered buffer stays live. Here a cancel before the
 * transport handed over a connection is passed on (the transport closes what it was opening); a
 * cancel after it is held back: the connector finishes and the RSocket it yields is disposed at
 * once, which releases the frame and closes the connection.
 */
final class GuardedConnect {

    private static final int CONNECTING = 0;
    private static final int HANDED_OVER = 1;
    private static final int ABANDONED = 2;

    private GuardedConnect() {
    }

    static Mono<RSocket> connect(RSocketConnector connector, ClientTransport transport) {
        return Mono.<RSocket>create(sink -> {
            AtomicInteger state = new AtomicInteger(CONNECTING);
            AtomicBoolean settled = new AtomicBoolean(); // the RSocket went to the subscriber, or the subscriber left
            Disposable.Swap upstream = Disposables.swap();
            sink.onCancel(() -> {
                if (!settled.compareAndSet(false, true)) {
                    return;
                }
                if (state.compareAndSet(CONNECTING, ABANDONED)) {
                    upstream.dispose(); // no connection yet: the transport's own cancel closes what it was opening
                }
                // handed over: RSocket is setting it up; the RSocket is disposed when it comes
            });
            upstream.update(connector.connect(new Watched(transport, state)).subscribe(
                    rsocket -> {
                        if (settled.compareAndSet(false, true)) {
                            sink.success(rsocket);
                        } else {
                            rsocket.dispose(); // the subscriber left during setup: releases SETUP, closes the connection
                        }
                    },
                    e -> {
                        if (settled.compareAndSet(false, true)) {
                            sink.error(e);
                        }
                    },
                    () -> {
                        if (settled.compareAndSet(false, true)) {
                            sink.success();
                        }
                    }));
        }).doOnDiscard(RSocket.class, RSocket::dispose);
    }

    /** The transport, noting when it hands a connection to RSocket (or closing one that comes after the cancel). */
    private record Watched(ClientTransport transport, AtomicInteger state) implements ClientTransport {

        @Override
        public Mono<DuplexConnection> connect() {
            return transport.connect().handle((connection, sink) -> {
                // a later connect of the same session (resumption) passes too: only a cancel before the first stops them
                if (state.compareAndSet(CONNECTING, HANDED_OVER) || state.get() == HANDED_OVER) {
                    sink.next(connection);
                } else {
                    connection.dispose(); // arrived after the subscriber left
                }
            });
        }

        @Override
        public int maxFrameLength() {
            return transport.maxFrameLength();
        }

        @Override
        public String toString() {
            return transport.toString();
        }
    }
}
