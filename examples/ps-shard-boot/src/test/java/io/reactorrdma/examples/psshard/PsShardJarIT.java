package io.reactorrdma.examples.psshard;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.config.SoftConfig;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.TaggingMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.util.ByteBufPayload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fat jar as a user runs it: {@code java -jar target/ps-shard-boot.jar} with the one property
 * ({@code reactor.rdma.rsocket.server.port}), then called over RDMA from this JVM by a plain RSocket client
 * (routing metadata, JSON data) on the shm provider. Runs in {@code integration-test}, after the jar is
 * repackaged; the shm directory is private to the run, so port 7000 cannot clash.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PsShardJarIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void theJarServesItsRoutesOverRdma() throws Exception {
        Path jar = Paths.get(System.getProperty("ps.shard.jar", "target/ps-shard-boot.jar"));
        assertThat(jar).exists();
        Path shm = Paths.get("/dev/shm", "reactor-rdma-ps-shard-jar-it-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> output = Collections.synchronizedList(new ArrayList<>());
        Process app = new ProcessBuilder(java, "-Xmx256m", "-jar", jar.toString(),
                "--reactor.rdma.rsocket.server.port=7000",
                "--reactor.rdma.provider=shm", "--reactor.rdma.shm-directory=" + shm, "--reactor.rdma.threads=1",
                "--ps.shard.rows=1000", "--ps.shard.dimension=8")
                .redirectErrorStream(true).start();
        Thread pump = new Thread(() -> {
            try (var in = app.inputReader(StandardCharsets.UTF_8)) {
                in.lines().forEach(output::add);
            } catch (Exception ignored) {
                // the process ended
            }
        }, "ps-shard-jar-output");
        pump.setDaemon(true);
        pump.start();
        RdmaResources resources = RdmaResources.builder("ps-shard-jar-it").provider("shm")
                .softConfig(SoftConfig.defaults().withShmDirectory(shm)).threads(1).idle(IdleStrategy.BACK_OFF).build();
        RSocket shard = null;
        try {
            // Ready when it accepts a connection (Boot starts in a few seconds; slower on a busy host).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (shard == null) {
                assertThat(app.isAlive()).as("the application runs; its output:%n%s", String.join("\n", output)).isTrue();
                try {
                    shard = RSocketConnector.create()
                            .metadataMimeType(WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.getString())
                            .dataMimeType(WellKnownMimeType.APPLICATION_JSON.getString())
                            .connect(RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1").port(7000).runOn(resources)))
                            .block(WAIT);
                } catch (RuntimeException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the application did not accept a connection on RDMA port 7000; its output:\n"
                                + String.join("\n", output), notYet);
                    }
                    Thread.sleep(200);
                }
            }

            assertThat(call(shard, "info", "")).contains("\"index\":0", "\"count\":1", "\"rows\":1000", "\"dimension\":8");
            assertThat(call(shard, "fetch", "{\"keys\":[0,5]}")).startsWith("{\"keys\":[0,5],\"rows\":[[");
        } finally {
            if (shard != null) {
                shard.dispose();
            }
            resources.dispose();
            app.destroy();
            if (!app.waitFor(30, TimeUnit.SECONDS)) {
                app.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            if (Files.exists(shm)) {
                try (Stream<Path> w = Files.walk(shm)) {
                    w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private static String call(RSocket shard, String route, String json) {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        CompositeByteBuf metadata = alloc.compositeBuffer();
        ByteBuf routing = TaggingMetadataCodec.createRoutingMetadata(alloc, List.of(route)).getContent();
        CompositeMetadataCodec.encodeAndAddMetadata(metadata, alloc, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING, routing);
        Payload request = ByteBufPayload.create(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8), metadata);
        return shard.requestResponse(request).map(reply -> {
            String data = reply.getDataUtf8();
            reply.release();
            return data;
        }).block(WAIT);
    }
}
