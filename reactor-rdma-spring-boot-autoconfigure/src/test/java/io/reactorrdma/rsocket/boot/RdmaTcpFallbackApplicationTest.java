package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.rsocket.context.RSocketServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test application ({@link EchoApplication}) with a deliberately unavailable provider (the shm
 * provider refuses a directory others may read: {@code ProviderUnavailableException}) and
 * {@code tcp-port} set: the server starts serving TCP only, the auto-configured requester with
 * {@code reactor.rdma.rsocket.client.tcp-fallback=true} falls back to TCP and every call still
 * succeeds; health {@code rdma} is DOWN with the provider's error and counts the fallback in use,
 * {@code rdma.fallbacks} is counted with its cause.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaTcpFallbackApplicationTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Path shmDirectory = Paths.get("/dev/shm", "reactor-rdma-boot-fallback-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    private ConfigurableApplicationContext context;

    @AfterEach
    void cleanUp() throws IOException {
        if (context != null) {
            context.close();
        }
        if (Files.exists(shmDirectory)) {
            try (Stream<Path> w = Files.walk(shmDirectory)) {
                w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void requesterFallsBackToTcpAndEveryCallSucceeds() throws Exception {
        Files.createDirectory(shmDirectory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        List<org.springframework.boot.rsocket.server.RSocketServer> started = new CopyOnWriteArrayList<>();
        context = new SpringApplicationBuilder(EchoApplication.class).web(WebApplicationType.NONE)
                .properties("reactor.rdma.provider=shm", "reactor.rdma.name=boot-fallback", "reactor.rdma.threads=1",
                        "reactor.rdma.shm-directory=" + shmDirectory, "reactor.rdma.rsocket.server.port=0",
                        "reactor.rdma.rsocket.server.tcp-port=0", "reactor.rdma.rsocket.client.tcp-fallback=true")
                .listeners((ApplicationListener<RSocketServerInitializedEvent>) e -> started.add(e.getServer()))
                .run();

        RdmaRSocketServer server = (RdmaRSocketServer) started.stream().filter(s -> s instanceof RdmaRSocketServer).findFirst().orElseThrow();
        assertThat(server.address()).as("no RDMA address: the provider cannot open").isNull();
        assertThat(server.rdmaUnavailable()).get().asString().contains("ProviderUnavailableException");
        assertThat(context.getEnvironment().containsProperty(RdmaServerPortsPublisher.RDMA_PORT)).isFalse();
        int tcpPort = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.TCP_PORT, Integer.class);

        RdmaRSocketRequesters requesters = context.getBean(RdmaRSocketRequesters.class);
        assertThat(requesters.isTcpFallback()).as("reactor.rdma.rsocket.client.tcp-fallback").isTrue();
        EchoController controller = context.getBean(EchoController.class);
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        RdmaHealthIndicator health = context.getBean(RdmaHealthIndicator.class);
        // the RDMA port does not matter: the provider fails before any connect
        RSocketRequester requester = requesters.tcpFallback(tcpPort).requester("127.0.0.1", 7000);
        try {
            assertThat(requester.route("greet").data(new EchoController.Request("tcp", 3)).retrieveMono(EchoController.Reply.class).block(WAIT))
                    .isEqualTo(new EchoController.Reply("hello tcp", 3));
            assertThat(controller.connects.get()).as("@ConnectMapping calls").isEqualTo(1);
            List<EchoController.Reply> stream = requester.route("count").data(new EchoController.Request("n", 1000))
                    .retrieveFlux(EchoController.Reply.class).collectList().block(WAIT);
            assertThat(stream).hasSize(1000).endsWith(new EchoController.Reply("n", 999));
            List<EchoController.Reply> channel = requester.route("shout")
                    .data(Flux.range(0, 50).map(i -> new EchoController.Request("x" + i, i)), EchoController.Request.class)
                    .retrieveFlux(EchoController.Reply.class).collectList().block(WAIT);
            assertThat(channel).hasSize(50).contains(new EchoController.Reply("X49", 49));
            requester.route("note").data(new EchoController.Request("fnf", 0)).send().block(WAIT);
            assertThat(controller.fireAndForgets.asFlux().next().block(WAIT)).isEqualTo("fnf");

            assertThat(meters.find("rdma.fallbacks").tag("cause", "ProviderUnavailableException").counter())
                    .as("rdma.fallbacks{cause=ProviderUnavailableException}").isNotNull()
                    .satisfies(c -> assertThat(c.count()).isGreaterThanOrEqualTo(1.0));
            Health down = health.health(true);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails().get("error")).asString().contains("ProviderUnavailableException");
            assertThat(down.getDetails()).containsEntry("fallbacksInUse", 1);
            assertThat((Long) down.getDetails().get("fallbacks")).isGreaterThanOrEqualTo(1L);
        } finally {
            requester.dispose();
        }
        await(() -> requesters.fallbacksInUse() == 0, "the TCP connection closed after the requester was disposed");
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
