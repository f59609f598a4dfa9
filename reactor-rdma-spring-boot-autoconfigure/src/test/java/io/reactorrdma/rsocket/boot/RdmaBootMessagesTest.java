package io.reactorrdma.rsocket.boot;

import io.reactorrdma.verbs.ProviderUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.rsocket.autoconfigure.RSocketMessagingAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketRequesterAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketStrategiesAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/** What a Boot user reads: messages in Boot's property names, no paths of the source repository, one startup line. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaBootMessagesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RSocketStrategiesAutoConfiguration.class, RSocketMessagingAutoConfiguration.class,
                    RSocketRequesterAutoConfiguration.class, RdmaAutoConfiguration.class))
            .withPropertyValues("reactor.rdma.threads=1");

    private final Path shmDirectory = Paths.get("/dev/shm", "reactor-rdma-boot-messages-" + ProcessHandle.current().pid()
            + "-" + System.nanoTime());

    @AfterEach
    void removeDirectory() throws IOException {
        Files.deleteIfExists(shmDirectory);
    }

    @Test
    void aProviderErrorNamesTheBootPropertyAndNoRepositoryPath() throws IOException {
        // the shm provider refuses a directory that is a file, and advises to set its directory property
        Files.createFile(shmDirectory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        runner.withPropertyValues("reactor.rdma.provider=shm", "reactor.rdma.shm-directory=" + shmDirectory).run(context -> {
            Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> context.getBean(io.reactorrdma.RdmaResources.class));
            ProviderUnavailableException unavailable = findCause(failure);
            assertThat(unavailable).as("the provider's error").isNotNull();
            assertThat(unavailable.getMessage()).contains("reactor.rdma.shm-directory").doesNotContain("reactor.rdma.soft.shmDir");
            FailureAnalysis analysis = new ProviderUnavailableFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains("reactor.rdma.shm-directory").doesNotContain("reactor.rdma.soft.shmDir");
            assertThat(analysis.getAction()).doesNotContain("docs/");
            Health health = context.getBean(RdmaHealthIndicator.class).health(true);
            assertThat(String.valueOf(health.getDetails().get("error"))).contains("reactor.rdma.shm-directory");
        });
    }

    private static ProviderUnavailableException findCause(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t instanceof ProviderUnavailableException p) {
                return p;
            }
        }
        return null;
    }

    @Test
    void anInvalidSizeIsEchoedAsWrittenAndTheAdvicePointsAtNoRepositoryPath() {
        runner.withPropertyValues("reactor.rdma.provider=loopback", "reactor.rdma.engine.send-window=-1MB").run(context -> {
            FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("reactor.rdma.engine.send-window", "'-1MB'", "negative")
                    .doesNotContain("-1048576B");
            assertThat(analysis.getAction()).doesNotContain("docs/");
        });
    }

    @Test
    void theProviderAndDeviceChosenAreLoggedOnceAtInfo() {
        Logger jul = Logger.getLogger(RdmaResourcesFactory.class.getName());
        List<String> infos = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel() == Level.INFO) {
                    infos.add(java.text.MessageFormat.format(r.getMessage(),
                            r.getParameters() == null ? new Object[0] : r.getParameters()));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(capture);
        try {
            runner.withPropertyValues("reactor.rdma.provider=loopback").run(context -> {
                context.getBean(io.reactorrdma.RdmaResources.class);
                context.getBean(io.reactorrdma.RdmaResources.class);
            });
        } finally {
            jul.removeHandler(capture);
        }
        assertThat(infos).as("INFO lines of " + jul.getName()).hasSize(1);
        assertThat(infos.get(0)).contains("provider loopback", "device", "reactor.rdma.provider=loopback");
    }

    @Test
    void theHealthSwitchIsInTheConfigurationMetadata() throws IOException {
        JsonNode metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = JsonMapper.builder().build().readTree(in);
        }
        JsonNode found = null;
        for (JsonNode p : metadata.get("properties")) {
            if (p.get("name").asString().equals("management.health.rdma.enabled")) {
                found = p;
            }
        }
        assertThat(found).as("management.health.rdma.enabled in the metadata").isNotNull();
        assertThat(found.get("type").asString()).isEqualTo("java.lang.Boolean");
        assertThat(found.get("defaultValue").asBoolean()).isTrue();
        assertThat(found.has("description")).isTrue();
    }
}
