package io.reactorrdma.rsocket.boot;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/** A Spring Boot RSocket application as a user writes it: auto-configuration plus one controller. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(EchoController.class)
class EchoApplication {
}
