package io.reactorrdma.rsocket.boot;

import org.springframework.boot.rsocket.context.RSocketServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;

import java.util.HashMap;
import java.util.Map;

/**
 * When an {@link RdmaRSocketServer} has started, puts the ports it bound into the environment as
 * {@value #RDMA_PORT} and {@value #TCP_PORT} (as Boot does with {@code local.rsocket.server.port}),
 * so tests and clients in the same application find ports picked with 0. A server serving TCP only
 * (its RDMA provider cannot open) publishes no RDMA port.
 */
public class RdmaServerPortsPublisher implements ApplicationListener<RSocketServerInitializedEvent> {

    /** The RDMA port bound. */
    public static final String RDMA_PORT = "local.reactor.rdma.rsocket.server.port";
    /** The TCP port bound, when serving TCP too. */
    public static final String TCP_PORT = "local.reactor.rdma.rsocket.server.tcp-port";
    private static final String SOURCE = "reactor.rdma.server.ports";

    private final ConfigurableEnvironment environment;

    /** Publishes into {@code environment}. */
    public RdmaServerPortsPublisher(ConfigurableEnvironment environment) {
        this.environment = environment;
    }

    @Override
    public void onApplicationEvent(RSocketServerInitializedEvent event) {
        if (!(event.getServer() instanceof RdmaRSocketServer server)) {
            return;
        }
        MutablePropertySources sources = environment.getPropertySources();
        PropertySource<?> existing = sources.get(SOURCE);
        @SuppressWarnings("unchecked")
        Map<String, Object> ports = existing == null ? new HashMap<>() : (Map<String, Object>) existing.getSource();
        if (server.address() != null) { // null: serving TCP only, the provider cannot open here
            ports.put(RDMA_PORT, server.address().getPort());
        }
        if (server.tcpAddress() != null) {
            ports.put(TCP_PORT, server.tcpAddress().getPort());
        }
        if (existing == null) {
            sources.addFirst(new MapPropertySource(SOURCE, ports));
        }
    }
}
