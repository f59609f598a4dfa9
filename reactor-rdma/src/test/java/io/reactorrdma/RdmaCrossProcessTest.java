package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.reactorrdma.TestMessages.crc;
import static org.assertj.core.api.Assertions.assertThat;

/** The public API between two processes over shm: integrity under random sizes on many sockets, and a killed server. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RdmaCrossProcessTest {

    private Path dir;
    /**
     * The library default: a killed peer is noticed at once (its socket closes), so nothing here needs a
     * short one, and a short one (500 ms before) counted a peer descheduled on a loaded 2-core CI host as dead.
     */
    private static final Duration PEER_TIMEOUT = SoftConfig.DEFAULT_PEER_TIMEOUT;

    private Process serverProcess;
    private int port;
    private RdmaResources client;

    @BeforeEach
    void start() throws IOException {
        dir = Paths.get("/dev/shm", "reactor-rdma-api-xp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String java = ProcessHandle.current().info().command().orElse("java");
        serverProcess = new ProcessBuilder(java, "-Xmx512m",
                "-D" + io.reactorrdma.config.SoftConfig.STRICT_PROPERTY + "=" + io.reactorrdma.config.SoftConfig.defaults().strict(),
                "-cp", System.getProperty("java.class.path"),
                ShmEchoServerMain.class.getName(), dir.toString(),
                String.valueOf(PEER_TIMEOUT.toMillis()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(serverProcess.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(line).isNotNull().startsWith("READY ");
        port = Integer.parseInt(line.substring(6).trim());
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(dir).withPeerTimeout(PEER_TIMEOUT);
        client = RdmaResources.builder("client").provider("shm").softConfig(soft).threads(2).idle(IdleStrategy.BACK_OFF)
                .engine(EngineConfig.defaults()).build();
    }

    @AfterEach
    void stop() throws Exception {
        client.dispose();
        assertThat(client.allocator().liveBuffers()).as("client live buffers").isZero();
        serverProcess.getOutputStream().close();
        if (!serverProcess.waitFor(20, TimeUnit.SECONDS)) {
            serverProcess.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (Files.exists(dir)) {
            try (Stream<Path> w = Files.walk(dir)) {
                for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }


    @Test
    void randomSizesOnManySocketsComeBackIntactAndInOrder() {
        int sockets = 6;
        int perSocket = 40;
        List<Long> verified = Flux.range(0, sockets)
                .flatMap(s -> RdmaClient.create().port(port).runOn(client).connect().flatMap(c -> {
                    Random r = new Random(s);
                    int[] sizes = new int[perSocket];
                    for (int i = 0; i < perSocket; i++) {
                        sizes[i] = r.nextInt(8) == 0 ? r.nextInt(4 << 20) : r.nextInt(20_000);
                    }
                    long[] sums = new long[perSocket];
                    Mono<Void> send = c.outbound().send(Flux.range(0, perSocket).map(i -> {
                        byte[] bytes = new byte[sizes[i]];
                        r.nextBytes(bytes);
                        ByteBuf b = c.alloc().directBuffer(Math.max(1, sizes[i])).writeBytes(bytes);
                        sums[i] = crc(b);
                        return b;
                    })).then();
                    Mono<Long> check = c.inbound().receive().take(perSocket).index().map(t -> {
                        ByteBuf b = t.getT2();
                        try {
                            int i = t.getT1().intValue();
                            assertThat(b.readableBytes()).isEqualTo(sizes[i]);
                            assertThat(crc(b)).isEqualTo(sums[i]);
                            return i;
                        } finally {
                            b.release();
                        }
                    }).count();
                    return Mono.zip(send.thenReturn(0), check).map(t -> t.getT2()).doFinally(x -> c.dispose());
                }))
                .collectList().block(Duration.ofSeconds(150));
        assertThat(verified).hasSize(sockets).containsOnly((long) perSocket);
        assertThat(client.domains()[0].metrics().rnrEvents() + client.domains()[1].metrics().rnrEvents()).isZero();
    }

    /** Bytes streamed by {@link #streamingDedicatedRegionsKeepsShmMemoryBounded}; 2 GiB for the by-hand measurement. */
    static final long STREAM_BYTES = Long.getLong("reactor.rdma.test.shmStreamBytes", 128L << 20);

    /**
     * Messages above the pool's block size get a dedicated region each, on both sides
     * (the receiver's destination, which the echo sends back from). The sender maps the receiver's
     * region to write into it; once the receiver frees and unlinks it, that mapping must go, or
     * every message's tmpfs pages stay alive. Measured as the bytes both processes still map of
     * unlinked files in the shm directory (/proc/PID/maps "(deleted)") plus the files there.
     */
    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS) // the 2 GiB run by hand; the build streams 128 MiB
    void streamingDedicatedRegionsKeepsShmMemoryBounded() throws Exception {
        int size = 8 << 20; // above the 4 MiB pool block: a dedicated region per message
        int messages = (int) Math.max(8, STREAM_BYTES / size);
        long bound = 24L * size; // a few messages in flight per side, plus what the GC has not collected yet
        RdmaConnection c = RdmaClient.create().port(port).runOn(client).connectNow();
        java.util.concurrent.BlockingQueue<Long> echoes = new java.util.concurrent.LinkedBlockingQueue<>();
        reactor.core.Disposable inbound = c.inbound().receive().subscribe(b -> {
            try {
                echoes.add(b.readableBytes() == size ? crc(b) : -1L);
            } finally {
                b.release();
            }
        });
        long worst = 0;
        long start = System.nanoTime();
        try {
            for (int i = 0; i < messages; i++) {
                ByteBuf b = c.alloc().directBuffer(size);
                b.writerIndex(size);
                b.setLong(0, i);
                long sum = crc(b);
                c.outbound().send(Mono.just(b)).then().block(Duration.ofSeconds(60));
                Long echoed = echoes.poll(60, TimeUnit.SECONDS);
                assertThat(echoed).as("echo of message %d", i).isEqualTo(sum);
                long held = shmBytesHeld();
                worst = Math.max(worst, held);
                assertThat(held).as("shm bytes held after %d messages of %d bytes", i + 1, size).isLessThanOrEqualTo(bound);
            }
        } finally {
            inbound.dispose();
            c.dispose();
        }
        System.out.printf("streamed %d MiB in %d ms as %d messages of %d MiB; shm held at most %d MiB%n",
                (long) messages * size >> 20, (System.nanoTime() - start) / 1_000_000, messages, size >> 20, worst >> 20);
    }

    /**
     * Bytes of the shm directory's files plus the mappings of unlinked ones in this process and the
     * server; a file mapped by both counts once (by inode).
     */
    private long shmBytesHeld() throws IOException {
        long total = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                try {
                    total += Files.size(f);
                } catch (IOException gone) {
                    // deleted meanwhile
                }
            }
        }
        java.util.Map<String, Long> unlinked = new java.util.HashMap<>();
        for (long pid : new long[]{ProcessHandle.current().pid(), serverProcess.pid()}) {
            for (String line : Files.readAllLines(Paths.get("/proc", Long.toString(pid), "maps"))) {
                if (line.contains(dir.toString() + "/") && line.endsWith("(deleted)")) {
                    String[] f = line.trim().split("\\s+");
                    String[] range = f[0].split("-");
                    long bytes = Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16);
                    unlinked.merge(f[3] + ":" + f[4], bytes, Math::max);
                }
            }
        }
        for (long bytes : unlinked.values()) {
            total += bytes;
        }
        return total;
    }

    @Test
    void killingTheServerEndsTheConnectionWithAClearError() {
        RdmaConnection c = RdmaClient.create().port(port).runOn(client).connectNow();
        c.outbound().send(Mono.just(c.alloc().directBuffer(8).writeLong(7))).then().block(Duration.ofSeconds(30));
        reactor.test.StepVerifier.create(c.inbound().receive().doOnNext(ByteBuf::release))
                .expectNextCount(1)
                .then(serverProcess::destroyForcibly) // SIGKILL: no goodbye
                .expectErrorSatisfies(e -> assertThat(e).hasMessageContaining("peer"))
                .verify(Duration.ofSeconds(30));
        reactor.test.StepVerifier.create(c.onDispose()).verifyComplete();
    }
}
