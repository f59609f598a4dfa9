package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.rsocket.context.RSocketServerBootstrap;
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
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real Spring Boot application ({@link EchoApplication}: auto-configuration and a {@code @Controller})
 * served over RDMA with one property, called through an {@link RSocketRequester} from the auto-configured
 * builder over RDMA: request-response, a stream of 1,000, a channel, fire-and-forget and the connect
 * mapping, JSON through Boot's RSocketStrategies. Also: the {@code rdma.*} meters move, the health
 * indicator is UP, and closing the context leaves no live buffers, no shm files and no I/O threads.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaSpringBootApplicationTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Path shmDirectory = Paths.get("/dev/shm", "reactor-rdma-boot-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
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

    @ParameterizedTest
    @ValueSource(strings = {"shm", "loopback"})
    void servesEveryInteractionModelOverRdma(String provider) throws Exception {
        String name = "boot-" + provider;
        context = new SpringApplicationBuilder(EchoApplication.class).web(WebApplicationType.NONE)
                .properties("reactor.rdma.provider=" + provider, "reactor.rdma.name=" + name, "reactor.rdma.threads=1",
                        "reactor.rdma.shm-directory=" + shmDirectory, "reactor.rdma.rsocket.server.port=0")
                .run();
        int port = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.RDMA_PORT, Integer.class);
        RdmaResources resources = context.getBean(RdmaResources.class);
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        EchoController controller = context.getBean(EchoController.class);
        double sentBefore = sentBytes(meters, name);

        RSocketRequester requester = context.getBean(RdmaRSocketRequesters.class).requester("127.0.0.1", port);
        try {
            EchoController.Reply reply = requester.route("greet").data(new EchoController.Request("rdma", 7))
                    .retrieveMono(EchoController.Reply.class).block(WAIT);
            assertThat(reply).isEqualTo(new EchoController.Reply("hello rdma", 7));
            assertThat(controller.connects.get()).as("@ConnectMapping calls").isEqualTo(1);

            List<EchoController.Reply> stream = requester.route("count").data(new EchoController.Request("n", 1000))
                    .retrieveFlux(EchoController.Reply.class).collectList().block(WAIT);
            assertThat(stream).hasSize(1000);
            assertThat(stream.get(999)).isEqualTo(new EchoController.Reply("n", 999));

            List<EchoController.Reply> channel = requester.route("shout")
                    .data(Flux.range(0, 50).map(i -> new EchoController.Request("x" + i, i)), EchoController.Request.class)
                    .retrieveFlux(EchoController.Reply.class).collectList().block(WAIT);
            assertThat(channel).hasSize(50).contains(new EchoController.Reply("X49", 49));

            requester.route("note").data(new EchoController.Request("fnf", 0)).send().block(WAIT);
            assertThat(controller.fireAndForgets.asFlux().next().block(WAIT)).isEqualTo("fnf");

            assertThat(sentBytes(meters, name)).as("rdma.bytes.sent moved").isGreaterThan(sentBefore);
            Health health = context.getBean(RdmaHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("provider", provider).containsKey("liveBuffers");
        } finally {
            requester.dispose();
        }

        context.close();
        context = null;
        assertThat(resources.isDisposed()).isTrue();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (resources.allocator().liveBuffers() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(resources.allocator().liveBuffers()).as("live buffers after close").isZero();
        assertThat(ioThreads(name)).as("reactor-rdma threads after close").isEmpty();
        if (Files.exists(shmDirectory)) {
            try (Stream<Path> files = Files.list(shmDirectory)) {
                assertThat(files).as("files left in the shm directory").isEmpty();
            }
        }
    }

    /**
     * With {@code tcp-port} the same handlers answer over TCP too, and Boot's own RSocket server
     * ({@code spring.rsocket.server.port}) runs beside the RDMA one.
     */
    @Test
    void servesOverTcpTooBesideBootsOwnServer() {
        List<org.springframework.boot.rsocket.server.RSocketServer> started = new java.util.concurrent.CopyOnWriteArrayList<>();
        context = new SpringApplicationBuilder(EchoApplication.class).web(WebApplicationType.NONE)
                .properties("reactor.rdma.provider=loopback", "reactor.rdma.name=boot-dual", "reactor.rdma.threads=1",
                        "reactor.rdma.rsocket.server.port=0", "reactor.rdma.rsocket.server.tcp-port=0", "spring.rsocket.server.port=0")
                .listeners((ApplicationListener<RSocketServerInitializedEvent>) e -> started.add(e.getServer()))
                .run();
        int rdmaPort = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.RDMA_PORT, Integer.class);
        int tcpPort = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.TCP_PORT, Integer.class);
        assertThat(context.getBeansOfType(RSocketServerBootstrap.class)).as("Boot's server and ours").hasSize(2);
        assertThat(started).hasSize(2);
        int bootPort = started.stream().filter(s -> !(s instanceof RdmaRSocketServer)).findFirst().orElseThrow().address().getPort();
        RSocketRequester.Builder builder = context.getBean(RSocketRequester.Builder.class);
        List<RSocketRequester> requesters = List.of(builder.tcp("127.0.0.1", tcpPort), builder.tcp("127.0.0.1", bootPort),
                context.getBean(RdmaRSocketRequesters.class).requester("127.0.0.1", rdmaPort));
        try {
            for (RSocketRequester r : requesters) {
                assertThat(r.route("greet").data(new EchoController.Request("both", 1)).retrieveMono(EchoController.Reply.class).block(WAIT))
                        .isEqualTo(new EchoController.Reply("hello both", 1));
            }
        } finally {
            requesters.forEach(RSocketRequester::dispose);
        }
    }

    private static double sentBytes(MeterRegistry meters, String name) {
        return meters.find("rdma.bytes.sent").tag("resources", name).functionCounters().stream()
                .mapToDouble(c -> c.count()).sum();
    }

    private static List<String> ioThreads(String name) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<String> left;
        do {
            left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> n.startsWith(name + "-")).toList();
            if (!left.isEmpty()) {
                Thread.sleep(20);
            }
        } while (!left.isEmpty() && System.nanoTime() < deadline);
        return left;
    }
}
