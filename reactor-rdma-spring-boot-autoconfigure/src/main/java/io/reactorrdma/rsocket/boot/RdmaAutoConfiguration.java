package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import io.rsocket.frame.FrameLengthCodec;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.rsocket.context.RSocketServerBootstrap;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.messaging.rsocket.RSocketStrategies;
import org.springframework.messaging.rsocket.annotation.support.RSocketMessageHandler;
import org.springframework.util.ClassUtils;

import java.util.List;

/**
 * Spring Boot auto-configuration of reactor-rdma ({@code reactor.rdma.*}, see {@link RdmaProperties}):
 * <ul>
 *   <li>{@link RdmaResources} {@code rdmaResources}: one per application, created on first use,
 *       disposed when the context closes (its I/O threads end, its shm files are removed);</li>
 *   <li>with {@code reactor.rdma.rsocket.server.port} set and Spring's RSocket messaging present: the
 *       application's {@link RSocketMessageHandler} served over RDMA (and TCP on {@code tcp-port}) by an
 *       {@link RdmaRSocketServerFactory} and an {@link RdmaRSocketServerBootstrap} (a Boot
 *       {@link RSocketServerBootstrap}) {@code rdmaRSocketServerBootstrap}, which publishes Boot's
 *       {@code RSocketServerInitializedEvent} and stops the server (RDMA, TCP or both) with the context;</li>
 *   <li>{@link RdmaRSocketRequesters}: requesters over RDMA from Boot's {@code RSocketRequester.Builder},
 *       falling back to TCP with {@code reactor.rdma.rsocket.client.tcp-fallback=true};</li>
 *   <li>{@link RdmaShardClients}: replicated {@code ShardClient}s (and requesters over them) for the shards of
 *       {@code reactor.rdma.rsocket.client.shards.<name>.replicas}, disposed when the context closes;</li>
 *   <li>with Actuator's health support: the health indicator {@code rdma}, which reports what exists
 *       and never creates the resources.</li>
 * </ul>
 * Runs after Boot's RSocket auto-configurations, so Boot's own TCP/WebSocket server (set up by
 * {@code spring.rsocket.server.port}) runs beside this one. Every bean backs off when the
 * application defines one of its type; {@code reactor.rdma.enabled=false} switches everything off.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.rsocket.autoconfigure.RSocketStrategiesAutoConfiguration",
        "org.springframework.boot.rsocket.autoconfigure.RSocketMessagingAutoConfiguration",
        "org.springframework.boot.rsocket.autoconfigure.RSocketRequesterAutoConfiguration",
        "org.springframework.boot.rsocket.autoconfigure.RSocketServerAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        // The same under Spring Boot 3.5 (one spring-boot-autoconfigure module).
        "org.springframework.boot.autoconfigure.rsocket.RSocketStrategiesAutoConfiguration",
        "org.springframework.boot.autoconfigure.rsocket.RSocketMessagingAutoConfiguration",
        "org.springframework.boot.autoconfigure.rsocket.RSocketRequesterAutoConfiguration",
        "org.springframework.boot.autoconfigure.rsocket.RSocketServerAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnProperty(prefix = "reactor.rdma", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(RdmaProperties.class)
public class RdmaAutoConfiguration {

    /** Checks the settings at startup (a bad value fails it, explained by a failure analyzer). */
    @Bean
    @ConditionalOnMissingBean
    public RdmaResourcesFactory rdmaResourcesFactory(RdmaProperties properties, ObjectProvider<MeterRegistry> registry) {
        return new RdmaResourcesFactory(properties, registry::getIfUnique);
    }

    /** The beans of this configuration that use the resources (reaching them through an {@code ObjectProvider}). */
    private static final List<String> RESOURCE_USERS = List.of("rdmaRSocketServerFactory", "rdmaRSocketRequesters", "rdmaShardClients");

    /**
     * The shared resources: created on first use, disposed with the context, after the beans that use
     * them. Those reach them through an {@code ObjectProvider}, so Spring records no dependency by
     * itself, and a bean created on first use is destroyed first: the resources would be disposed
     * under the shard clients and requesters still using them (every replica ejected, reconnects
     * against disposed resources). The dependency is recorded once the resources exist: recorded
     * before, a provider that cannot open would make Spring destroy those beans with the failed one.
     */
    @Bean(destroyMethod = "dispose")
    @Lazy
    @ConditionalOnMissingBean
    public RdmaResources rdmaResources(RdmaResourcesFactory factory, ConfigurableListableBeanFactory beanFactory) {
        RdmaResources resources = factory.create();
        for (String user : RESOURCE_USERS) {
            if (beanFactory.containsBeanDefinition(user)) {
                beanFactory.registerDependentBean("rdmaResources", user);
            }
        }
        return resources;
    }

    /** The RSocket server over RDMA, serving the application's {@code @MessageMapping} handlers. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.rsocket.context.RSocketServerBootstrap",
            "org.springframework.messaging.rsocket.annotation.support.RSocketMessageHandler",
            "io.rsocket.transport.netty.server.TcpServerTransport"})
    @ConditionalOnProperty(prefix = "reactor.rdma.rsocket.server", name = "port")
    static class ServerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RdmaRSocketServerFactory rdmaRSocketServerFactory(RdmaProperties properties, ObjectProvider<RdmaResources> resources,
                                                          ObjectProvider<RSocketServerCustomizer> customizers) {
            RdmaProperties.Server server = properties.getRsocket().getServer();
            // Without a TCP port an RDMA provider that cannot open fails startup here, as early as possible;
            // with one, the server looks at the provider when it starts and serves TCP only if it cannot open.
            RdmaRSocketServerFactory factory = server.getTcpPort() == null ? new RdmaRSocketServerFactory(resources.getObject())
                    : new RdmaRSocketServerFactory(resources::getObject);
            factory.setAddress(server.getAddress());
            factory.setPort(server.getPort());
            factory.setTcpPort(server.getTcpPort());
            factory.addServerCustomizers(customizers.orderedStream().toArray(RSocketServerCustomizer[]::new));
            return factory;
        }

        @Bean
        @ConditionalOnMissingBean(name = "rdmaRSocketServerBootstrap")
        @ConditionalOnBean(RSocketMessageHandler.class)
        RdmaRSocketServerBootstrap rdmaRSocketServerBootstrap(RdmaRSocketServerFactory rdmaRSocketServerFactory,
                RSocketMessageHandler messageHandler) {
            return new RdmaRSocketServerBootstrap(rdmaRSocketServerFactory, messageHandler.responder());
        }

        @Bean
        @ConditionalOnMissingBean
        RdmaServerPortsPublisher rdmaServerPortsPublisher(ConfigurableEnvironment environment) {
            return new RdmaServerPortsPublisher(environment);
        }
    }

    /** Requesters over RDMA from Boot's requester builder. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.messaging.rsocket.RSocketRequester")
    static class RequesterConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(RSocketRequester.Builder.class)
        RdmaRSocketRequesters rdmaRSocketRequesters(ObjectProvider<RSocketRequester.Builder> builders,
                ObjectProvider<RdmaResources> resources,
                                                    RdmaProperties properties, ObjectProvider<MeterRegistry> registry) {
            RdmaProperties.Client client = properties.getRsocket().getClient();
            RdmaRSocketRequesters.check(client);
            int maxFrameLength = (int) Math.min(properties.getEngine().getMaxMessageSize().toBytes(), FrameLengthCodec.FRAME_LENGTH_MASK);
            return new RdmaRSocketRequesters(builders, resources, client, registry::getIfUnique, maxFrameLength);
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(RSocketRequester.Builder.class)
        RdmaShardClients rdmaShardClients(RdmaRSocketRequesters rdmaRSocketRequesters, RdmaProperties properties,
                                          ObjectProvider<MeterRegistry> registry, ObjectProvider<RSocketStrategies> strategies) {
            return new RdmaShardClients(properties.getRsocket().getClient(), rdmaRSocketRequesters, registry::getIfUnique,
                    () -> strategies.getIfAvailable(RSocketStrategies::create));
        }
    }

    /** Actuator health indicator {@code rdma}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("rdma")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "rdmaHealthIndicator")
        RdmaHealthIndicator rdmaHealthIndicator(ConfigurableListableBeanFactory beanFactory, ObjectProvider<RdmaResourcesFactory> factory,
                                                ObjectProvider<RdmaRSocketRequesters> requesters) {
            boolean servers = ClassUtils.isPresent("org.springframework.boot.rsocket.context.RSocketServerBootstrap",
                    beanFactory.getBeanClassLoader());
            return new RdmaHealthIndicator(() -> existingResources(beanFactory), () -> {
                RdmaResourcesFactory f = factory.getIfUnique();
                return f == null ? null : f.lastFailure();
            }, servers ? () -> ServedServers.servingTcpOnlyBecause(beanFactory) : () -> null, requesters);
        }

        /** The resources if a bean of them was created: looked up without creating a lazy one. */
        private static RdmaResources existingResources(ConfigurableListableBeanFactory beanFactory) {
            for (String name : beanFactory.getBeanNamesForType(RdmaResources.class, false, false)) {
                if (beanFactory.containsSingleton(name)) {
                    return beanFactory.getBean(name, RdmaResources.class);
                }
            }
            return null;
        }
    }

    /** Kept apart so that the health configuration loads without Boot's RSocket support. */
    private static final class ServedServers {
        static Throwable servingTcpOnlyBecause(ConfigurableListableBeanFactory beanFactory) {
            for (String name : beanFactory.getBeanNamesForType(RdmaRSocketServerBootstrap.class, false, false)) {
                if (beanFactory.containsSingleton(name)) {
                    Throwable t = beanFactory.getBean(name, RdmaRSocketServerBootstrap.class).server().rdmaUnavailable().orElse(null);
                    if (t != null) {
                        return t;
                    }
                }
            }
            return null;
        }
    }
}
