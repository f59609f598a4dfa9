package io.reactorrdma.rsocket.fallback;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.testing.CountingServer;
import io.reactorrdma.config.SoftConfig;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The server process of {@link FallbackChaosTest}: {@link CountingServer} served with
 * {@link RdmaServers#dual} over the shm fabric and TCP. Prints {@code READY <rdmaPort> <tcpPort>},
 * then answers commands on standard input, one a line:
 * <ul>
 *   <li>{@code stats}: prints {@code STATS <rdmaRequests> <tcpRequests>};</li>
 *   <li>{@code fail-rdma}: the RDMA side goes down while TCP goes on: the listener closes (new RDMA
 *       connects are refused) and the RDMA resources are disposed, which ends every RDMA connection
 *       under its calls (the peers' engines report it). Prints {@code OK}.</li>
 *   <li>{@code open-rdma}: after {@code fail-rdma}, the RDMA side comes back on new resources and
 *       the same port, serving the same acceptor. Prints {@code OK}.</li>
 * </ul>
 * When standard input closes it closes everything, prints {@code EXIT live=<buffers>} (the
 * registered buffers still live, over all the resources it built) and exits. Arguments: the shm directory, the peer timeout in ms.
 */
public final class DualServerMain {

    public static void main(String[] args) throws Exception {
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(Paths.get(args[0]))
                .withPeerTimeout(Duration.ofMillis(Long.parseLong(args[1])));
        List<RdmaResources> built = new ArrayList<>();
        RdmaResources resources = resources(soft, built);
        CountingServer counting = new CountingServer();
        DualServer server = RdmaServers.dual(counting.server(),
                        RdmaServerTransport.create(RdmaServer.create().host("127.0.0.1").port(0).runOn(resources)),
                        new InetSocketAddress("127.0.0.1", 0))
                .block(Duration.ofSeconds(30));
        int rdmaPort = server.rdmaAddress().getPort();
        RdmaServerTransport.Bound reopened = null;
        System.out.println("READY " + rdmaPort + " " + server.tcpAddress().getPort());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            switch (line.trim()) {
                case "stats" -> System.out.println("STATS " + counting.rdmaRequests.get() + " " + counting.tcpRequests.get());
                case "fail-rdma" -> {
                    (reopened != null ? reopened : server.rdmaServer()).dispose();
                    resources.dispose();
                    System.out.println("OK");
                }
                case "open-rdma" -> {
                    resources = resources(soft, built);
                    reopened = counting.server().bind(RdmaServerTransport.create(
                            RdmaServer.create().host("127.0.0.1").port(rdmaPort).runOn(resources))).block(Duration.ofSeconds(30));
                    System.out.println("OK");
                }
                default -> System.out.println("UNKNOWN " + line);
            }
            System.out.flush();
        }
        if (reopened != null) {
            reopened.dispose();
            reopened.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(Duration.ofSeconds(30));
        }
        server.dispose();
        server.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(Duration.ofSeconds(30));
        built.forEach(RdmaResources::dispose);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (live(built) != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        System.out.println("EXIT live=" + live(built));
        System.out.flush();
        System.exit(0);
    }

    private static RdmaResources resources(SoftConfig soft, List<RdmaResources> built) {
        RdmaResources r = RdmaResources.builder("dual-server").provider("shm").softConfig(soft)
                .threads(1).idle(IdleStrategy.BLOCK).build();
        built.add(r);
        return r;
    }

    private static long live(List<RdmaResources> built) {
        return built.stream().mapToLong(r -> r.allocator().liveBuffers()).sum();
    }
}
