package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.rsocket.autoconfigure.RSocketMessagingAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketRequesterAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketStrategiesAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration's lifecycle edges: what a context close stops, and what the health
 * indicator may (not) do.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaLifecycleEdgesTest {

    private static final String AWAIT_THREAD = "rdma-rsocket-server-await";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RSocketStrategiesAutoConfiguration.class, RSocketMessagingAutoConfiguration.class,
                    RSocketRequesterAutoConfiguration.class, RdmaAutoConfiguration.class))
            .withPropertyValues("reactor.rdma.provider=loopback", "reactor.rdma.threads=1");

    private static List<Thread> awaitThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(AWAIT_THREAD)).toList();
    }

    @Test
    void closingTheContextStopsATcpOnlyServerAndItsAwaitThread() throws Exception {
        List<Thread> before = awaitThreads();
        int[] tcpPort = new int[1];
        List<Thread> started = new java.util.ArrayList<>();
        // disni cannot open here: the server serves TCP only
        runner.withPropertyValues("reactor.rdma.provider=disni", "reactor.rdma.rsocket.server.port=0",
                "reactor.rdma.rsocket.server.tcp-port=0")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    tcpPort[0] = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.TCP_PORT, Integer.class);
                    started.addAll(awaitThreads());
                    started.removeAll(before);
                    assertThat(started).as("the server's await thread").hasSize(1);
                });
        for (Thread t : started) {
            t.join(TimeUnit.SECONDS.toMillis(10)); // ends at once when the server is stopped; the timeout is a safety net
            assertThat(t.isAlive()).as("the non-daemon " + AWAIT_THREAD + " thread ended with the context").isFalse();
        }
        try (ServerSocket again = new ServerSocket()) {
            again.setReuseAddress(true);
            again.bind(new InetSocketAddress("0.0.0.0", tcpPort[0]));
            assertThat(again.isBound()).as("the TCP port is free after the context closed").isTrue();
        }
    }

    @Test
    void healthDoesNotCreateTheResources() {
        runner.run(context -> {
            Health health = context.getBean(RdmaHealthIndicator.class).health(true);
            assertThat(context.getBeanFactory().containsSingleton("rdmaResources")).as("health created the RDMA resources").isFalse();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("resources", "not created yet: created on first use");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class CountingFactory {
        static final AtomicInteger opens = new AtomicInteger();

        @Bean
        RdmaResourcesFactory rdmaResourcesFactory(RdmaProperties properties) {
            return new RdmaResourcesFactory(properties, () -> {
                opens.incrementAndGet(); // create() asks for the registry first, then opens the provider
                return (MeterRegistry) null;
            });
        }
    }

    @Test
    void aProviderThatCannotOpenIsNotReopenedByHealthAndHealthFollowsTheServer() {
        CountingFactory.opens.set(0);
        runner.withUserConfiguration(CountingFactory.class)
                .withPropertyValues("reactor.rdma.provider=disni", "reactor.rdma.rsocket.server.port=0",
                        "reactor.rdma.rsocket.server.tcp-port=0")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(CountingFactory.opens.get()).as("the server tried the provider once at start").isEqualTo(1);
                    RdmaHealthIndicator indicator = context.getBean(RdmaHealthIndicator.class);
                    for (int probe = 0; probe < 3; probe++) {
                        Health down = indicator.health(true);
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(down.getDetails().get("error")).asString().contains("ProviderUnavailableException");
                    }
                    assertThat(CountingFactory.opens.get()).as("health probes re-opened the provider").isEqualTo(1);
                });
    }

    @Test
    void healthStaysDownWhileTheServerServesTcpOnlyEvenOnceResourcesExist() {
        // The server could not use the provider; resources that work appear later (the cause fixed by hand,
        // here: resources of another provider). The server still serves TCP only: health stays DOWN.
        runner.withPropertyValues("reactor.rdma.provider=disni", "reactor.rdma.rsocket.server.port=0",
                "reactor.rdma.rsocket.server.tcp-port=0")
                .run(context -> {
                    RdmaRSocketServer server = context.getBean(RdmaRSocketServerBootstrap.class).server();
                    assertThat(server.rdmaUnavailable()).isPresent();
                    io.reactorrdma.RdmaResources fixed = io.reactorrdma.RdmaResources.builder("fixed")
                            .provider("loopback").threads(1).build();
                    try {
                        RdmaHealthIndicator indicator = new RdmaHealthIndicator(() -> fixed, () -> null,
                                () -> server.rdmaUnavailable().orElse(null), null);
                        Health down = indicator.health(true);
                        assertThat(down.getStatus()).as("the server serves TCP only").isEqualTo(Status.DOWN);
                        assertThat(down.getDetails().get("error")).asString().contains("ProviderUnavailableException");
                        assertThat(down.getDetails()).containsEntry("servingTcpOnly", true).containsEntry("provider", "loopback");
                        Health auto = context.getBean(RdmaHealthIndicator.class).health(true);
                        assertThat(auto.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(auto.getDetails()).containsEntry("servingTcpOnly", true);
                    } finally {
                        fixed.dispose();
                    }
                });
    }
}
