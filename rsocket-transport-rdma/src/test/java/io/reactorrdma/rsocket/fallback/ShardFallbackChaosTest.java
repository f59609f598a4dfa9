package io.reactorrdma.rsocket.fallback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.shard.CallOptions;
import io.reactorrdma.rsocket.shard.PeerClosedChannelException;
import io.reactorrdma.rsocket.shard.ShardClient;
import io.reactorrdma.rsocket.testing.CountingServer;
import io.reactorrdma.rsocket.testing.ForwardingDuplexConnection;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.reactorrdma.config.SoftConfig;
import io.rsocket.DuplexConnection;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.RequestResponseFrameCodec;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recovery stack together when RDMA fails mid-run: a {@link ShardClient} whose replica
 * is reached through a {@link FallbackClientTransport} to a forked {@link DualServerMain} (shm fabric
 * + TCP). Eight callers run a closed loop of idempotent request-responses over RDMA; then the
 * server's RDMA side fails while TCP stays: no idempotent call fails (ShardClient retries them on
 * the replica's next connection, which falls back to TCP), and the non-idempotent calls in flight
 * fail with a {@link ClosedChannelException} naming the replica and why its connection closed.
 * Then RDMA comes back on the same port: within the probe interval the connection returns and new
 * calls go over RDMA again. After it: no live registered buffer on either side, no shm file, no
 * client I/O thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShardFallbackChaosTest {

    private static final Duration PEER_TIMEOUT = Duration.ofMillis(1000);
    private static final Duration PROBE_INTERVAL = Duration.ofMillis(500);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String CLIENT = "shard-fallback-chaos-client";
    private static final String HELD = "slow:3000:held-";

    private ForkedDualServer server;
    private Path dir;
    private int rdmaPort;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private LazyRdmaClientTransport rdma;
    private ShardClient shard;
    private final AtomicBoolean looping = new AtomicBoolean(true);
    private final AtomicLong answered = new AtomicLong();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    /** Requests for {@link #HELD} calls the client's connections have sent. */
    private final AtomicLong heldSent = new AtomicLong();

    @BeforeEach
    void start() throws IOException {
        server = ForkedDualServer.start("reactor-rdma-shard-fallback", PEER_TIMEOUT);
        dir = server.dir;
        rdmaPort = server.rdmaPort;
        int tcpPort = server.tcpPort;
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(dir).withPeerTimeout(PEER_TIMEOUT);
        rdma = LazyRdmaClientTransport.create(() -> RdmaResources.builder(CLIENT).provider("shm").softConfig(soft).threads(1)
                .idle(IdleStrategy.BLOCK).build(), "127.0.0.1", rdmaPort);
        FallbackClientTransport transport = FallbackClientTransport.builder(rdma, TcpClientTransport.create("127.0.0.1", tcpPort))
                .rdmaConnectTimeout(Duration.ofSeconds(3)).totalConnectTimeout(Duration.ofSeconds(15))
                .firstProbeDelay(Duration.ofMillis(100)).probeInterval(PROBE_INTERVAL).meterRegistry(registry).build();
        shard = ShardClient.builder().replicas(List.of(new InetSocketAddress("127.0.0.1", rdmaPort)))
                .transport(a -> transport)
                .connector(c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY).interceptors(r -> r.forConnection((type, conn) ->
                        type == DuplexConnectionInterceptor.Type.SOURCE ? new CountingHeld(conn) : conn)))
                .meterRegistry(registry)
                .timeout(Duration.ofSeconds(8)) // longer than the held calls: only a lost connection fails them
                .maxAttempts(5)
                .keepAlive(Duration.ofSeconds(1), Duration.ofSeconds(10))
                .connectTimeout(Duration.ofSeconds(20))
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
                .connect().block(WAIT);
    }

    @AfterEach
    void stop() throws Exception {
        try {
            looping.set(false);
            if (shard != null) {
                shard.dispose();
                shard.onClose().block(WAIT);
            }
            rdma.dispose();
            RdmaResources resources = rdma.resources().orElse(null);
            if (resources != null) {
                await(() -> resources.allocator().liveBuffers() == 0, "client buffers released");
            }
            server.stopAndCheck();
            await(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().startsWith(CLIENT)), "client threads ended");
        } finally {
            server.destroy();
        }
    }

    @Test
    void rdmaFailsMidRunThenReturns() throws Exception {
        CompletableFuture<Void> loop = Flux.range(0, 8)
                .flatMap(i -> Mono.defer(() -> call("c" + i).contextWrite(CallOptions.idempotent()))
                        .doOnNext(answer -> answered.incrementAndGet())
                        .onErrorResume(e -> {
                            failures.add(e);
                            return Mono.empty();
                        })
                        .repeat(looping::get), 8)
                .then().toFuture();
        awaitServer(s -> s[0] >= 100, "100 calls over RDMA");

        // non-idempotent calls in flight when RDMA fails: held 3 s by the server
        List<CompletableFuture<String>> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(call(HELD + i).contextWrite(CallOptions.notIdempotent()).toFuture());
        }
        await(() -> heldSent.get() == 4, "the four held calls sent over RDMA");
        long[] beforeFailure = server.stats();
        assertThat(server.command("fail-rdma")).isEqualTo("OK");

        String replica = "127.0.0.1:" + rdmaPort;
        for (CompletableFuture<String> f : held) {
            assertThat(f).failsWithin(WAIT);
            Throwable e = unwrap(f);
            assertThat(e).as("a non-idempotent call in flight").isInstanceOf(PeerClosedChannelException.class)
                    .isInstanceOf(ClosedChannelException.class);
            assertThat(e.getMessage()).as("names the replica: " + e.getMessage()).contains(replica);
            assertThat(((PeerClosedChannelException) e).peer()).isEqualTo(replica);
            assertThat(e.getCause()).as("the connection's close error: " + e.getMessage()).isInstanceOf(ClosedChannelException.class);
            assertThat(e.getCause().getCause()).as("why the RDMA connection closed").isNotNull();
            assertThat(e.getCause().getCause().getMessage()).as("the engine's cause names the peer").contains("peer");
        }
        System.out.println("a held call failed with: " + unwrap(held.get(0)).getMessage());
        awaitServer(s -> s[1] >= 100, "100 calls over TCP after the fallback");
        assertThat(counted("rdma.fallbacks")).isGreaterThanOrEqualTo(1.0);

        assertThat(server.command("open-rdma")).isEqualTo("OK");
        long opened = System.nanoTime();
        await(() -> counted("rdma.returns") >= 1.0, "the return to RDMA");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opened);
        // the probe interval, plus connecting, with slack for a busy host
        assertThat(tookMillis).as("ms from RDMA open again to the return").isLessThan(PROBE_INTERVAL.toMillis() + 10_000);
        Thread.sleep(300); // streams opened on TCP just before the return end there
        long[] returned = server.stats();
        awaitServer(s -> s[0] >= returned[0] + 100, "100 more calls over RDMA after the return");
        assertThat(server.stats()[1]).as("no new call over TCP after the return").isEqualTo(returned[1]);

        looping.set(false);
        loop.get(30, TimeUnit.SECONDS);
        assertThat(failures).as("failed idempotent calls").isEmpty();
        assertThat(answered.get()).as("calls answered over RDMA, TCP, RDMA (server counts 300+)").isGreaterThan(250);
        assertThat(counted("rdma.recovery.retries")).as("idempotent calls retried").isGreaterThanOrEqualTo(1.0);
        System.out.println("answered " + answered.get() + ", before the failure (RDMA, TCP) " + beforeFailure[0] + ", " + beforeFailure[1]
                + ", retries " + counted("rdma.recovery.retries") + ", return after " + tookMillis + " ms");
    }

    private Mono<String> call(String data) {
        return shard.requestResponse(Mono.fromSupplier(() -> DefaultPayload.create(data))).map(CountingServer::data);
    }

    private static Throwable unwrap(CompletableFuture<?> f) {
        try {
            f.getNow(null);
            throw new AssertionError("the call succeeded");
        } catch (java.util.concurrent.CompletionException e) {
            return e.getCause();
        }
    }

    private double counted(String name) {
        return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private void awaitServer(java.util.function.Predicate<long[]> condition, String what) {
        await(() -> {
            try {
                return condition.test(server.stats());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }, what);
    }

    private static void await(BooleanSupplier condition, String what) {
        LiveBufferWait.until(WAIT, condition, what);
    }

    /** Counts the held calls' requests this client sends, so the test knows they are in flight. */
    private final class CountingHeld extends ForwardingDuplexConnection {

        CountingHeld(DuplexConnection delegate) {
            super(delegate);
        }

        @Override
        public void sendFrame(int streamId, ByteBuf frame) {
            if (FrameHeaderCodec.frameType(frame) == FrameType.REQUEST_RESPONSE
                    && RequestResponseFrameCodec.data(frame).toString(StandardCharsets.UTF_8).startsWith(HELD)) {
                heldSent.incrementAndGet();
            }
            delegate.sendFrame(streamId, frame);
        }
    }
}
