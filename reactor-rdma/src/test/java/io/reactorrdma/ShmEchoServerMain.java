package io.reactorrdma;

import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;

import java.nio.file.Paths;
import java.time.Duration;

/**
 * The server process of {@link RdmaCrossProcessTest}: an echo {@link RdmaServer} on the shm
 * provider. Prints {@code READY <port>}; exits when its standard input closes.
 */
public final class ShmEchoServerMain {

    public static void main(String[] args) throws Exception {
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(Paths.get(args[0]))
                .withPeerTimeout(Duration.ofMillis(Long.parseLong(args[1])));
        RdmaResources resources = RdmaResources.builder("echo-server").provider("shm").softConfig(soft).threads(1)
                .idle(IdleStrategy.BACK_OFF).engine(EngineConfig.defaults()).build();
        DisposableRdmaServer server = RdmaServer.create().port(0).runOn(resources)
                .handle((in, out) -> out.send(in.receive()))
                .bindNow();
        System.out.println("READY " + server.port());
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the parent closes our stdin
        }
        server.disposeNow(Duration.ofSeconds(10));
        resources.dispose();
        System.exit(0);
    }
}
