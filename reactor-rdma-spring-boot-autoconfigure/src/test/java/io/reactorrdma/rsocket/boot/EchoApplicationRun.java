package io.reactorrdma.rsocket.boot;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixture of the application tests: runs the test application ({@link EchoApplication}, no web
 * server) with a shm directory of its own, closes it after each test and deletes that directory;
 * and calls every interaction model of its {@link EchoController} through a requester.
 *
 * <pre>{@code
 * @RegisterExtension
 * final EchoApplicationRun app = new EchoApplicationRun("reactor-rdma-boot-test-");
 * }</pre>
 */
final class EchoApplicationRun implements AfterEachCallback {

    static final Duration WAIT = Duration.ofSeconds(30);

    private final Path shmDirectory;
    private ConfigurableApplicationContext context;

    /** {@code prefix} names the shm directory under /dev/shm (the process id and a nano time follow). */
    EchoApplicationRun(String prefix) {
        this.shmDirectory = Paths.get("/dev/shm", prefix + ProcessHandle.current().pid() + "-" + System.nanoTime());
    }

    /** This run's shm directory (created by the provider, or by a test that wants it otherwise). */
    Path shmDirectory() {
        return shmDirectory;
    }

    /** Runs the application with {@code properties} and what {@code customize} adds (listeners). */
    ConfigurableApplicationContext run(UnaryOperator<SpringApplicationBuilder> customize, String... properties) {
        context = customize.apply(new SpringApplicationBuilder(EchoApplication.class).web(WebApplicationType.NONE)
                .properties(properties)).run();
        return context;
    }

    /** Runs the application with {@code properties}. */
    ConfigurableApplicationContext run(String... properties) {
        return run(UnaryOperator.identity(), properties);
    }

    /** Closes the running application now (a test that checks what its close left behind). */
    void close() {
        if (context != null) {
            context.close();
            context = null;
        }
    }

    @Override
    public void afterEach(ExtensionContext extensionContext) {
        close();
        if (Files.exists(shmDirectory)) {
            try (Stream<Path> w = Files.walk(shmDirectory)) {
                w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException("could not delete the test's shm directory " + shmDirectory, e);
            }
        }
    }

    /**
     * Request-response ({@code greet} with {@code who} and {@code n}; the connect mapping ran once),
     * a stream of 1,000, a channel of 50 and a fire-and-forget through {@code requester}, each
     * checked against the controller's answer.
     */
    void callsEveryInteractionModel(RSocketRequester requester, String who, int n) {
        EchoController controller = context.getBean(EchoController.class);
        assertThat(requester.route("greet").data(new EchoController.Request(who, n)).retrieveMono(EchoController.Reply.class).block(WAIT))
                .isEqualTo(new EchoController.Reply("hello " + who, n));
        assertThat(controller.connects.get()).as("@ConnectMapping calls").isEqualTo(1);
        List<EchoController.Reply> stream = requester.route("count").data(new EchoController.Request("n", 1000))
                .retrieveFlux(EchoController.Reply.class).collectList().block(WAIT);
        assertThat(stream).hasSize(1000).endsWith(new EchoController.Reply("n", 999));
        List<EchoController.Reply> channel = requester.route("shout")
                .data(Flux.range(0, 50).map(i -> new EchoController.Request("x" + i, i)), EchoController.Request.class)
                .retrieveFlux(EchoController.Reply.class).collectList().block(WAIT);
        assertThat(channel).hasSize(50).contains(new EchoController.Reply("X49", 49));
        requester.route("note").data(new EchoController.Request("fnf", 0)).send().block(WAIT);
        assertThat(controller.fireAndForgets.asFlux().next().block(WAIT)).isEqualTo("fnf");
    }
}
