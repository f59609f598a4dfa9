package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.VerbsConformanceSuite;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.QpAttributes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The conformance suite on the shared-memory fabric (both peers in this JVM; see ShmCrossProcessTest for separate processes). */
class ShmConformanceTest extends VerbsConformanceSuite {

    static final Duration PEER_TIMEOUT = Duration.ofMillis(400);
    static Path dir;

    @BeforeAll
    static void createDirectory() {
        dir = Paths.get("/dev/shm", "reactor-rdma-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    }

    @AfterAll
    static void removeDirectory() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.filter(p -> !p.getFileName().toString().startsWith("port-")))
                    .as("every file is removed on close").isEmpty();
        }
        ShmTestSupport.deleteTree(dir);
    }

    static SoftConfig config() {
        return SoftConfig.defaults().withShmDirectory(dir).withPeerTimeout(PEER_TIMEOUT);
    }

    @Override
    protected VerbsContext openContext() {
        return SoftContext.openShm(config());
    }

    @Override
    protected void vanish(VerbsContext context) {
        ((SoftContext) context).vanish();
    }

    @Override
    protected Duration peerDeathBound() {
        return PEER_TIMEOUT.multipliedBy(10);
    }

    @Override
    protected long peerWakeupsSentBy(io.reactorrdma.verbs.QueuePair qp) {
        return ((SoftQueuePair) qp).peerWakeups();
    }

    @Test
    void aNonLocalHostIsAClearError() {
        try (SoftContext c = SoftContext.openShm(config())) {
            var qp = c.createQp(c.allocPd(), QpAttributes.create(c.createCq(64)));
            // TEST-NET-3 (RFC 5737): documentation-only, never contacted — the check happens before any I/O.
            assertThatThrownBy(() -> c.connect(new InetSocketAddress("203.0.113.7", 7000), qp, null, Duration.ofSeconds(1)))
                    .isInstanceOf(VerbsException.class).hasMessageContaining("not an address of this host");
            assertThatThrownBy(() -> c.listen(new InetSocketAddress("203.0.113.7", 7000), 1))
                    .isInstanceOf(VerbsException.class).hasMessageContaining("disni");
        }
    }

    @Test
    void filesAreMode0600InAPrivateDirectoryAndGoneAfterClose() throws IOException {
        SoftContext c = SoftContext.openShm(config());
        try (c) {
            c.allocPd().allocate(4096, io.reactorrdma.verbs.AccessFlags.LOCAL_WRITE);
            c.createQp(c.allocPd(), QpAttributes.create(c.createCq(64)));
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
            try (Stream<Path> files = Files.list(dir)) {
                var mine = files.filter(p -> p.getFileName().toString().startsWith(c.id() + ".")).toList();
                assertThat(mine).hasSizeGreaterThanOrEqualTo(5); // lock, regions, region, qp, cq
                for (Path p : mine) {
                    assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p)))
                            .isEqualTo("rw-------");
                }
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.filter(p -> p.getFileName().toString().startsWith(c.id() + "."))).isEmpty();
        }
    }

    @Test
    void filesOfADeadContextAreReclaimedAtTheNextStart() throws IOException {
        Files.createDirectories(dir);
        String dead = "999999999-abcdef1";
        Path lock = dir.resolve(dead + ".lock");
        Path qp = dir.resolve(dead + ".qp1");
        Path region = dir.resolve(dead + ".r10000");
        Files.write(lock, new byte[0]);
        Files.write(qp, new byte[128]);
        Files.write(region, new byte[128]);
        try (SoftContext c = SoftContext.openShm(config())) {
            assertThat(Files.exists(qp)).isFalse();
            assertThat(Files.exists(region)).isFalse();
            assertThat(Files.exists(lock)).isFalse();
        }
    }

    @Test
    void aLiveContextsFilesAreNotReclaimed() {
        try (SoftContext a = SoftContext.openShm(config()); SoftContext b = SoftContext.openShm(config())) {
            assertThat(Files.exists(dir.resolve(a.id() + ".regions"))).isTrue();
            assertThat(Files.exists(dir.resolve(b.id() + ".regions"))).isTrue();
        }
    }
}
