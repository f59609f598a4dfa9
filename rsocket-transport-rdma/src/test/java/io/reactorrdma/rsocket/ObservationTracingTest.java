package io.reactorrdma.rsocket;

import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.sampler.Sampler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.micrometer.observation.ByteBufGetter;
import io.rsocket.micrometer.observation.ByteBufSetter;
import io.rsocket.micrometer.observation.ObservationRequesterRSocketProxy;
import io.rsocket.micrometer.observation.ObservationResponderRSocketProxy;
import io.rsocket.micrometer.observation.RSocketRequesterTracingObservationHandler;
import io.rsocket.micrometer.observation.RSocketResponderTracingObservationHandler;
import io.rsocket.plugins.RSocketInterceptor;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A trace crosses an RDMA hop as it crosses TCP: with RSocket-Java's Micrometer Observation proxies
 * ({@code rsocket-micrometer}) on both sides and Micrometer Tracing's Brave bridge reporting to memory, the
 * span context goes out in the request's composite metadata (B3), and the responder's span is a child of
 * the requester's, in the caller's trace. The same test runs over RDMA (loopback provider) and over TCP.
 *
 * <p>Brave rather than micrometer-tracing-test's {@code SimpleTracer}: rsocket-micrometer 1.1.5's requester
 * handler finds no parent observation under Micrometer 1.16 and builds its span from the tracer's current
 * context, which Brave honours and {@code SimpleTracer}'s span builder does not (its span has no ids).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ObservationTracingTest {

    private final List<MutableSpan> finished = new CopyOnWriteArrayList<>();
    private final Tracing tracing = Tracing.newBuilder()
            .localServiceName("trace-test")
            .currentTraceContext(ThreadLocalCurrentTraceContext.create())
            .sampler(Sampler.ALWAYS_SAMPLE)
            .addSpanHandler(new SpanHandler() {
                @Override
                public boolean end(brave.propagation.TraceContext context, MutableSpan span, Cause cause) {
                    finished.add(span);
                    return true;
                }
            })
            .build();
    private final BraveTracer tracer = new BraveTracer(tracing.tracer(),
            new BraveCurrentTraceContext(tracing.currentTraceContext()), new BraveBaggageManager());
    private final ObservationRegistry registry = ObservationRegistry.create();
    private final List<Disposable> toClose = new ArrayList<>();
    private final List<RdmaResources> resources = new ArrayList<>();

    @AfterEach
    void stop() {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).dispose();
        }
        resources.forEach(RdmaResources::dispose);
        tracing.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma", "tcp"})
    void theResponderSpanIsAChildOfTheRequesterSpan(String transport) {
        BravePropagator propagator = new BravePropagator(tracing);
        // As Spring Boot registers tracing handlers: the RSocket ones first, the default one for every other context.
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new RSocketRequesterTracingObservationHandler(tracer, propagator, new ByteBufSetter(), false),
                new RSocketResponderTracingObservationHandler(tracer, propagator, new ByteBufGetter(), false),
                new DefaultTracingObservationHandler(tracer)));

        RSocketServer server = RSocketServer.create(SocketAcceptor.forRequestResponse(p -> {
                    String d = p.getDataUtf8();
                    p.release();
                    return Mono.just(DefaultPayload.create("pong:" + d));
                }))
                .interceptors(ir -> ir.forResponder((RSocketInterceptor) r -> new ObservationResponderRSocketProxy(r, registry)));
        RSocketConnector connector = RSocketConnector.create()
                .metadataMimeType(WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.getString())
                .interceptors(ir -> ir.forRequester((RSocketInterceptor) r -> new ObservationRequesterRSocketProxy(r, registry)));

        ClientTransport clientTransport;
        if (transport.equals("rdma")) {
            RdmaResources serverResources = RdmaResources.builder("trace-server").provider("loopback").threads(1)
                    .idle(IdleStrategy.BACK_OFF).build();
            RdmaResources clientResources = RdmaResources.builder("trace-client").provider("loopback").threads(1)
                    .idle(IdleStrategy.BACK_OFF).build();
            resources.add(serverResources);
            resources.add(clientResources);
            RdmaServerTransport.Bound bound = server
                    .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                    .block(Duration.ofSeconds(30));
            toClose.add(bound);
            clientTransport = RdmaClientTransport.create(RdmaClient.create().port(bound.address().getPort()).runOn(clientResources));
        } else {
            CloseableChannel bound = server.bind(TcpServerTransport.create("127.0.0.1", 0)).block(Duration.ofSeconds(30));
            toClose.add(bound);
            clientTransport = TcpClientTransport.create(bound.address());
        }
        RSocket client = connector.connect(clientTransport).block(Duration.ofSeconds(30));
        toClose.add(client);

        Observation call = Observation.start("client-call", registry);
        String reply;
        try (Observation.Scope scope = call.openScope()) {
            reply = client.requestResponse(DefaultPayload.create("ping"))
                    .map(p -> {
                        String d = p.getDataUtf8();
                        p.release();
                        return d;
                    })
                    .contextWrite(Context.of(Observation.class, call))
                    .block(Duration.ofSeconds(30));
        } finally {
            call.stop();
        }
        assertThat(reply).isEqualTo("pong:ping");

        // The responder's span ends on the server's thread, possibly just after the reply arrived.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (finished.size() < 3 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        List<MutableSpan> spans = new ArrayList<>(finished);
        assertThat(spans).as("spans: the caller's, the requester's, the responder's").hasSize(3);
        MutableSpan root = spans.stream().filter(s -> "client-call".equals(s.name())).findFirst().orElseThrow();
        MutableSpan requester = spans.stream().filter(s -> s.kind() == brave.Span.Kind.PRODUCER).findFirst().orElseThrow();
        MutableSpan responder = spans.stream().filter(s -> s.kind() == brave.Span.Kind.CONSUMER).findFirst().orElseThrow();
        assertThat(requester.traceId()).as("the requester is in the caller's trace").isEqualTo(root.traceId());
        assertThat(requester.parentId()).isEqualTo(root.id());
        assertThat(responder.traceId()).as("the responder is in the caller's trace").isEqualTo(root.traceId());
        assertThat(responder.parentId()).as("the responder's span is a child of the requester's").isEqualTo(requester.id());
        assertThat(responder.id()).isNotEqualTo(requester.id());
    }
}
