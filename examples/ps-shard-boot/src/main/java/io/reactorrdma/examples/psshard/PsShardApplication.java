package io.reactorrdma.examples.psshard;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A parameter-server shard: a Spring Boot RSocket application whose {@link ShardController}
 * handlers are served over RDMA by reactor-rdma's auto-configuration, with the one property
 * {@code reactor.rdma.rsocket.server.port} (application.properties).
 */
@SpringBootApplication
@EnableConfigurationProperties(ShardProperties.class)
public class PsShardApplication {

    /** Starts the shard; {@code --ps.shard.index=1 --ps.shard.count=4} and the like on the command line. */
    public static void main(String[] args) {
        SpringApplication.run(PsShardApplication.class, args);
    }
}
