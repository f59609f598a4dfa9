package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.RdmaResourcesTestAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.rsocket.autoconfigure.RSocketMessagingAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketRequesterAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketStrategiesAutoConfiguration;
import org.springframework.boot.rsocket.context.RSocketServerBootstrap;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.messaging.rsocket.RSocketRequester;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The auto-configuration's conditions, back-off, property binding, failure analyzers, metrics
 * binding and health indicator, each in a small context (loopback provider: no files, no other process).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RSocketStrategiesAutoConfiguration.class, RSocketMessagingAutoConfiguration.class,
                    RSocketRequesterAutoConfiguration.class, RdmaAutoConfiguration.class))
            .withPropertyValues("reactor.rdma.provider=loopback", "reactor.rdma.threads=1");

    @Test
    void createsTheResourcesLazilyAndDisposesThemWithTheContext() {
        RdmaResources[] seen = new RdmaResources[1];
        runner.run(context -> {
            assertThat(context).hasSingleBean(RdmaResourcesFactory.class).hasSingleBean(RdmaRSocketRequesters.class)
                    .hasSingleBean(RdmaHealthIndicator.class).doesNotHaveBean(RdmaRSocketServerFactory.class)
                    .doesNotHaveBean(RSocketServerBootstrap.class);
            assertThat(context.getBeanFactory().containsSingleton("rdmaResources")).as("created before first use").isFalse();
            seen[0] = context.getBean(RdmaResources.class);
            assertThat(seen[0].context().providerName()).isEqualTo("loopback");
        });
        assertThat(seen[0].isDisposed()).as("disposed on close").isTrue();
    }

    @Test
    void bindsEveryProperty() {
        runner.withPropertyValues("reactor.rdma.name=bound", "reactor.rdma.threads=2", "reactor.rdma.idle=block",
                "reactor.rdma.max-engines-per-thread=8", "reactor.rdma.engine.send-queue-depth=16",
                "reactor.rdma.engine.recv-queue-depth=32",
                "reactor.rdma.engine.eager-size=4KB", "reactor.rdma.engine.fragment-size=32KB", "reactor.rdma.engine.send-window=2MB",
                "reactor.rdma.engine.socket-message-window=8", "reactor.rdma.engine.max-message-size=1MB",
                "reactor.rdma.engine.heartbeat-interval=250ms", "reactor.rdma.allocator.block-size=2MB",
                "reactor.rdma.allocator.retained-bytes=4MB", "reactor.rdma.shm-directory=/dev/shm/somewhere",
                "reactor.rdma.rsocket.server.tcp-port=7001", "reactor.rdma.rsocket.server.address=127.0.0.1").run(context -> {
            RdmaProperties p = context.getBean(RdmaProperties.class);
            assertThat(p.getIdle()).isEqualTo(IdleStrategy.BLOCK);
            assertThat(p.getMaxEnginesPerThread()).isEqualTo(8);
            assertThat(p.getShmDirectory()).hasToString("/dev/shm/somewhere");
            assertThat(p.getRsocket().getServer().getTcpPort()).isEqualTo(7001);
            assertThat(p.getRsocket().getServer().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
            assertThat(p.getAllocator().getRetainedBytes().toMegabytes()).isEqualTo(4);
            RdmaResources r = context.getBean(RdmaResources.class);
            assertThat(r.name()).isEqualTo("bound");
            assertThat(RdmaResourcesTestAccess.domains(r)).hasSize(2);
            assertThat(r.engineConfig().sendQueueDepth()).isEqualTo(16);
            assertThat(r.engineConfig().recvQueueDepth()).isEqualTo(32);
            assertThat(r.engineConfig().eagerSize()).isEqualTo(4096);
            assertThat(r.engineConfig().fragmentSize()).isEqualTo(32 * 1024);
            assertThat(r.engineConfig().sendWindowBytes()).isEqualTo(2L << 20);
            assertThat(r.engineConfig().socketMessageWindow()).isEqualTo(8);
            assertThat(r.engineConfig().maxMessageSize()).isEqualTo(1 << 20);
            assertThat(r.engineConfig().heartbeatInterval()).isEqualTo(Duration.ofMillis(250));
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnBeans() {
        runner.withUserConfiguration(OwnBeans.class).withPropertyValues("reactor.rdma.rsocket.server.port=0").run(context -> {
            assertThat(context).hasSingleBean(RdmaResources.class).hasSingleBean(RdmaRSocketRequesters.class)
                    .hasSingleBean(RdmaRSocketServerFactory.class);
            assertThat(context.getBean(RdmaResources.class).name()).isEqualTo("own");
            assertThat(context.getBean(RdmaRSocketRequesters.class)).isSameAs(context.getBean(OwnBeans.class).requesters);
            assertThat(context.getBean(RdmaRSocketServerFactory.class).resources().name()).isEqualTo("own");
        });
    }

    @Test
    void switchedOffByProperty() {
        runner.withPropertyValues("reactor.rdma.enabled=false", "reactor.rdma.rsocket.server.port=0").run(context ->
                assertThat(context).doesNotHaveBean(RdmaResourcesFactory.class).doesNotHaveBean(RdmaResources.class)
                        .doesNotHaveBean(RdmaRSocketRequesters.class).doesNotHaveBean(RdmaRSocketServerFactory.class));
    }

    @Test
    void withoutSpringRSocketOnTheClassPathOnlyTheResources() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(RSocketRequester.class, RSocketServerBootstrap.class))
                .withPropertyValues("reactor.rdma.provider=loopback", "reactor.rdma.threads=1", "reactor.rdma.rsocket.server.port=0")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(RdmaResourcesFactory.class)
                        .doesNotHaveBean(RdmaRSocketRequesters.class).doesNotHaveBean(RdmaRSocketServerFactory.class));
    }

    @Test
    void servesWithThePortProperty() throws InterruptedException {
        runner.withPropertyValues("reactor.rdma.rsocket.server.port=0").run(context -> {
            assertThat(context).hasSingleBean(RdmaRSocketServerFactory.class).hasBean("rdmaRSocketServerBootstrap");
            assertThat(context.getEnvironment().getProperty(RdmaServerPortsPublisher.RDMA_PORT, Integer.class)).isPositive();
            assertThat(awaitThreads()).as("a non-daemon thread keeps a serving application alive").anyMatch(t -> !t.isDaemon());
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!awaitThreads().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(awaitThreads()).as("the await thread ends when the server stops").isEmpty();
    }

    private static java.util.List<Thread> awaitThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("rdma-rsocket-server-await")).toList();
    }

    @Test
    void serverCustomizersApplyToTheRdmaAndTheTcpServer() {
        AtomicInteger accepted = new AtomicInteger();
        // the customizer's interceptor sees every connection accepted, over RDMA and over TCP
        runner.withBean(RSocketServerCustomizer.class, () -> server -> server.interceptors(r -> r.forSocketAcceptor(a -> (setup, rs) -> {
                    accepted.incrementAndGet();
                    return a.accept(setup, rs);
                })))
                .withPropertyValues("reactor.rdma.rsocket.server.port=0", "reactor.rdma.rsocket.server.tcp-port=0")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    int rdmaPort = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.RDMA_PORT, Integer.class);
                    int tcpPort = context.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.TCP_PORT, Integer.class);
                    RSocketRequester rdma = context.getBean(RdmaRSocketRequesters.class).requester("127.0.0.1", rdmaPort);
                    RSocketRequester tcp = context.getBean(RSocketRequester.Builder.class).tcp("127.0.0.1", tcpPort);
                    try {
                        rdma.rsocketClient().source().block(Duration.ofSeconds(30));
                        tcp.rsocketClient().source().block(Duration.ofSeconds(30));
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (accepted.get() < 2 && System.nanoTime() < deadline) {
                            Thread.sleep(10);
                        }
                        assertThat(accepted).as("connections the customizer's interceptor saw: RDMA and TCP").hasValue(2);
                    } finally {
                        rdma.dispose();
                        tcp.dispose();
                    }
                });
    }

    @Test
    void healthIndicatorSwitchedOffByManagementProperty() {
        runner.withPropertyValues("management.health.rdma.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RdmaHealthIndicator.class).hasSingleBean(RdmaResourcesFactory.class));
    }

    @Test
    void metersBindToTheApplicationsRegistry() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            context.getBean(RdmaResources.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("rdma.bytes.sent").tag("resources", RdmaProperties.DEFAULT_NAME).meters()).isNotEmpty();
            assertThat(registry.find("rdma.memory.registered.bytes").meters()).isNotEmpty();
        });
    }

    @Test
    void healthIsUpAndDownAfterTheResourcesAreGone() {
        runner.run(context -> {
            RdmaHealthIndicator indicator = context.getBean(RdmaHealthIndicator.class);
            context.getBean(RdmaResources.class); // the application uses them: health reports them
            Health up = indicator.health(true);
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("provider", "loopback").containsEntry("threads", 1).containsKeys("device", "engines",
                    "sockets", "liveBuffers", "registeredBytes").containsEntry("engineFailures", 0L);
            context.getBean(RdmaResources.class).dispose();
            Health down = indicator.health(true);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("reason", "the RDMA resources are disposed");
        });
    }

    @Test
    void healthIsDownWithTheProvidersErrorWhenItCannotOpen() {
        runner.withPropertyValues("reactor.rdma.provider=disni").run(context -> {
            assertThat(context.getBean(RdmaHealthIndicator.class).health(true).getStatus()).as("not used yet: nothing to report")
                    .isEqualTo(Status.UP);
            assertThatThrownBy(() -> context.getBean(RdmaResources.class)).as("the application's first use fails")
                    .hasRootCauseInstanceOf(ProviderUnavailableException.class);
            Health down = context.getBean(RdmaHealthIndicator.class).health(true);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails().get("error")).asString().contains("ProviderUnavailableException", "libdisni");
        });
    }

    @Test
    void unknownProviderFailsStartupWithAdvice() {
        runner.withPropertyValues("reactor.rdma.provider=infiniband").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("reactor.rdma.provider", "infiniband", "unknown provider");
            assertThat(analysis.getAction()).contains("shm", "loopback", "disni");
        });
    }

    @Test
    void invalidSizesFailStartupWithAdvice() {
        runner.withPropertyValues("reactor.rdma.engine.eager-size=2MB", "reactor.rdma.engine.max-message-size=1MB").run(context -> {
            FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("reactor.rdma.engine.eager-size", "'2MB'",
                    "larger than reactor.rdma.engine.max-message-size (1MB)");
        });
        runner.withPropertyValues("reactor.rdma.engine.send-window=-1B").run(context -> {
            FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("reactor.rdma.engine.send-window", "negative");
        });
        runner.withPropertyValues("reactor.rdma.engine.send-queue-depth=1").run(context -> {
            FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("reactor.rdma.engine.send-queue-depth", "at least 4");
        });
    }

    @Test
    void unavailableProviderWithATcpPortServesTcpOnly() {
        runner.withPropertyValues("reactor.rdma.provider=disni", "reactor.rdma.rsocket.server.port=0",
                "reactor.rdma.rsocket.server.tcp-port=0")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getEnvironment().getProperty(RdmaServerPortsPublisher.TCP_PORT, Integer.class)).isPositive();
                    assertThat(context.getEnvironment().containsProperty(RdmaServerPortsPublisher.RDMA_PORT))
                            .as("no RDMA served").isFalse();
                    Health down = context.getBean(RdmaHealthIndicator.class).health(true);
                    assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(down.getDetails().get("error")).asString().contains("ProviderUnavailableException");
                    assertThat(down.getDetails()).containsEntry("fallbacksInUse", 0).containsEntry("fallbacks", 0L);
                });
    }

    @Test
    void clientPropertiesBindAndDecideTheFallbackPort() {
        runner.run(context -> {
            RdmaRSocketRequesters requesters = context.getBean(RdmaRSocketRequesters.class);
            assertThat(requesters.isTcpFallback()).as("off by default").isFalse();
            assertThat(requesters.tcpPortFor(7000)).as("default offset +1").isEqualTo(7001);
            assertThat(requesters.tcpFallback(true).isTcpFallback()).isTrue();
            assertThat(requesters.isTcpFallback()).as("a copy: the bean is unchanged").isFalse();
            assertThat(requesters.tcpFallback(9000).tcpPortFor(7000)).isEqualTo(9000);
        });
        runner.withPropertyValues("reactor.rdma.rsocket.client.tcp-fallback=true", "reactor.rdma.rsocket.client.tcp-port-offset=100",
                "reactor.rdma.rsocket.client.probe-interval=1s", "reactor.rdma.rsocket.client.first-probe-delay=100ms").run(context -> {
            RdmaRSocketRequesters requesters = context.getBean(RdmaRSocketRequesters.class);
            assertThat(requesters.isTcpFallback()).isTrue();
            assertThat(requesters.tcpPortFor(7000)).isEqualTo(7100);
            assertThat(requesters.transport("127.0.0.1", 7000)).isInstanceOf(io.reactorrdma.rsocket.fallback.FallbackClientTransport.class);
            assertThat(requesters.tcpFallback(false).transport("127.0.0.1", 7000))
                    .isInstanceOf(io.reactorrdma.rsocket.RdmaClientTransport.class);
        });
        runner.withPropertyValues("reactor.rdma.rsocket.client.tcp-fallback=true",
                "reactor.rdma.rsocket.client.tcp-port=9000").run(context ->
                assertThat(context.getBean(RdmaRSocketRequesters.class).tcpPortFor(7000)).isEqualTo(9000));
    }

    @Test
    void invalidClientPropertiesFailStartupWithAdvice() {
        runner.withPropertyValues("reactor.rdma.rsocket.client.rdma-connect-timeout=5s",
                "reactor.rdma.rsocket.client.total-connect-timeout=5s")
                .run(context -> {
                    FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("reactor.rdma.rsocket.client.total-connect-timeout",
                            "must exceed rdma-connect-timeout");
                });
        runner.withPropertyValues("reactor.rdma.rsocket.client.tcp-port=70000").run(context -> {
            FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("reactor.rdma.rsocket.client.tcp-port", "70000");
        });
        runner.withPropertyValues("reactor.rdma.rsocket.client.probe-interval=0s").run(context -> {
            FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("reactor.rdma.rsocket.client.probe-interval", "positive");
        });
    }

    @Test
    void unavailableProviderFailsStartupWithTheProbesDiagnosis() {
        runner.withPropertyValues("reactor.rdma.provider=disni", "reactor.rdma.rsocket.server.port=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(ProviderUnavailableException.class);
            FailureAnalysis analysis = new ProviderUnavailableFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("cannot be used here", "Provider probes: disni: ");
            assertThat(analysis.getAction()).contains("reactor.rdma.provider=shm");
        });
    }

    @Test
    void portInUseFailsStartupWithAdvice() throws Exception {
        runner.withPropertyValues("reactor.rdma.rsocket.server.port=0").run(first -> {
            int taken = first.getEnvironment().getRequiredProperty(RdmaServerPortsPublisher.RDMA_PORT, Integer.class);
            runner.withPropertyValues("reactor.rdma.rsocket.server.port=" + taken).run(second -> {
                FailureAnalysis analysis = new RdmaPortInUseFailureAnalyzer().analyze(second.getStartupFailure());
                assertThat(analysis.getDescription()).contains("RDMA port " + taken, "reactor.rdma.rsocket.server.port", "already in use");
                assertThat(analysis.getAction()).contains("0 picks a free one");
            });
        });
        try (ServerSocket tcp = new ServerSocket(0)) {
            runner.withPropertyValues("reactor.rdma.rsocket.server.port=0",
                    "reactor.rdma.rsocket.server.tcp-port=" + tcp.getLocalPort()).run(context -> {
                FailureAnalysis analysis = new RdmaPortInUseFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains("TCP port " + tcp.getLocalPort(), "reactor.rdma.rsocket.server.tcp-port");
            });
        }
    }

    @Test
    void failureAnalyzersAndAutoConfigurationAreRegistered() {
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                // Boot's own analyzers need constructor arguments this plain lookup does not give: skip them.
                SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { }))).extracting(Object::getClass)
                .contains(InvalidRdmaPropertyFailureAnalyzer.class, ProviderUnavailableFailureAnalyzer.class,
                        RdmaPortInUseFailureAnalyzer.class);
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
                .contains(RdmaAutoConfiguration.class.getName());
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        final RdmaRSocketRequesters requesters = new RdmaRSocketRequesters(() -> null, () -> null);

        @Bean(destroyMethod = "dispose")
        RdmaResources ownResources() {
            return RdmaResources.builder("own").provider("loopback").threads(1).build();
        }

        @Bean
        RdmaRSocketRequesters ownRequesters() {
            return requesters;
        }
    }
}
