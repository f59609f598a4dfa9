package io.reactorrdma.rsocket.boot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.rsocket.autoconfigure.RSocketMessagingAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketRequesterAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketStrategiesAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
        runner.withPropertyValues("reactor.rdma.provider=disni", "reactor.rdma.rsocket.server.port=0", "reactor.rdma.rsocket.server.tcp-port=0")
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
}
