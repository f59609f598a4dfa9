package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.rsocket.context.RSocketServerBootstrap;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.rsocket.context.RSocketServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.messaging.rsocket.RSocketRequester;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

    private static final Duration WAIT = EchoApplicationRun.WAIT;

    @RegisterExtension
    final EchoApplicationRun app = new EchoApplicationRun("reactor-rdma-boot-test-");

    @ParameterizedTest
    @ValueSource(strings = {"shm", "loopback"})
    void servesEveryInteractionModelOverRdma(String provider) throws Exception {
        String name = "boot-" + provider;
        ConfigurableApplicationContext context = app.run("reactor.rdma.provider=" + provider, "reactor.rdma.name=" + name,
                "reactor.rdma.threads=1", "reactor.rdma.shm-directory=" + app.shmDirectory(), "reactor.rdma.rsocket.server.port=0");
        int port = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.RDMA_PORT, Integer.class);
        RdmaResources resources = context.getBean(RdmaResources.class);
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        double sentBefore = sentBytes(meters, name);

        RSocketRequester requester = context.getBean(RdmaRSocketRequesters.class).requester("127.0.0.1", port);
        try {
            app.callsEveryInteractionModel(requester, "rdma", 7);

            assertThat(sentBytes(meters, name)).as("rdma.bytes.sent moved").isGreaterThan(sentBefore);
            Health health = context.getBean(RdmaHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("provider", provider).containsKey("liveBuffers");
        } finally {
            requester.dispose();
        }

        app.close();
        assertThat(resources.isDisposed()).isTrue();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (resources.allocator().liveBuffers() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(resources.allocator().liveBuffers()).as("live buffers after close").isZero();
        assertThat(ioThreads(name)).as("reactor-rdma threads after close").isEmpty();
        if (Files.exists(app.shmDirectory())) {
            try (Stream<Path> files = Files.list(app.shmDirectory())) {
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
        ConfigurableApplicationContext context = app.run(
                b -> b.listeners((ApplicationListener<RSocketServerInitializedEvent>) e -> started.add(e.getServer())),
                "reactor.rdma.provider=loopback", "reactor.rdma.name=boot-dual", "reactor.rdma.threads=1",
                "reactor.rdma.rsocket.server.port=0", "reactor.rdma.rsocket.server.tcp-port=0", "spring.rsocket.server.port=0");
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
                assertThat(r.route("greet").data(new EchoController.Request("both", 1))
                        .retrieveMono(EchoController.Reply.class).block(WAIT))
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
