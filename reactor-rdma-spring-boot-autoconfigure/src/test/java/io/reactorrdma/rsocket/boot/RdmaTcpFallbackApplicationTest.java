package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.rsocket.context.RSocketServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.messaging.rsocket.RSocketRequester;

import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

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

    private static final Duration WAIT = EchoApplicationRun.WAIT;

    @RegisterExtension
    final EchoApplicationRun app = new EchoApplicationRun("reactor-rdma-boot-fallback-");

    @Test
    void requesterFallsBackToTcpAndEveryCallSucceeds() throws Exception {
        Files.createDirectory(app.shmDirectory(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        List<org.springframework.boot.rsocket.server.RSocketServer> started = new CopyOnWriteArrayList<>();
        ConfigurableApplicationContext context = app.run(
                b -> b.listeners((ApplicationListener<RSocketServerInitializedEvent>) e -> started.add(e.getServer())),
                "reactor.rdma.provider=shm", "reactor.rdma.name=boot-fallback", "reactor.rdma.threads=1",
                "reactor.rdma.shm-directory=" + app.shmDirectory(), "reactor.rdma.rsocket.server.port=0",
                "reactor.rdma.rsocket.server.tcp-port=0", "reactor.rdma.rsocket.client.tcp-fallback=true");

        RdmaRSocketServer server = (RdmaRSocketServer) started.stream().filter(s -> s instanceof RdmaRSocketServer)
                .findFirst().orElseThrow();
        assertThat(server.address()).as("no RDMA address: the provider cannot open").isNull();
        assertThat(server.rdmaUnavailable()).get().asString().contains("ProviderUnavailableException");
        assertThat(context.getEnvironment().containsProperty(RdmaServerPortsPublisher.RDMA_PORT)).isFalse();
        int tcpPort = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.TCP_PORT, Integer.class);

        RdmaRSocketRequesters requesters = context.getBean(RdmaRSocketRequesters.class);
        assertThat(requesters.isTcpFallback()).as("reactor.rdma.rsocket.client.tcp-fallback").isTrue();
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        RdmaHealthIndicator health = context.getBean(RdmaHealthIndicator.class);
        // the RDMA port does not matter: the provider fails before any connect
        RSocketRequester requester = requesters.tcpFallback(tcpPort).requester("127.0.0.1", 7000);
        try {
            app.callsEveryInteractionModel(requester, "tcp", 3);

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
