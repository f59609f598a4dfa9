package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.QpAttributes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shm directory is this user's alone: owned by this uid, not a symbolic link, mode exactly
 * 0700; anything else is refused with the path, what was found and the fix. Every file in it,
 * the listener's socket included, is 0600.
 */
class ShmDirectorySecurityTest {

    private Path base;

    @BeforeEach
    void createBase() throws IOException {
        base = Files.createDirectory(Paths.get("/dev/shm", "reactor-rdma-sec-" + ProcessHandle.current().pid() + "-" + System.nanoTime()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    @AfterEach
    void removeBase() throws IOException {
        ShmTestSupport.deleteTree(base);
    }

    private static SoftConfig config(Path dir) {
        return SoftConfig.defaults().withShmDirectory(dir);
    }

    @Test
    void aDirectoryReadableByOthersIsRefused() throws IOException {
        Path dir = Files.createDirectory(base.resolve("d"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> SoftContext.openShm(config(dir)).close())
                .isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining(dir.toString())
                .hasMessageContaining("rwxr-xr-x")
                .hasMessageContaining("chmod 700 " + dir);
        assertThat(listNames(dir)).as("nothing created in the refused directory").isEmpty();
    }

    @Test
    void aDirectoryOwnedByAnotherUserIsRefused() throws IOException {
        Path dir = Files.createDirectory(base.resolve("d"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        int nobody = 65534;
        try {
            Files.setAttribute(dir, "unix:uid", nobody);
        } catch (IOException | SecurityException e) {
            assumeTrue(false, "changing a directory's owner needs root: " + e);
        }
        assumeTrue(((Integer) Files.getAttribute(dir, "unix:uid")) == nobody, "chown had no effect here");
        assertThatThrownBy(() -> SoftContext.openShm(config(dir)).close())
                .isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining(dir.toString())
                .hasMessageContaining("uid " + nobody)
                .hasMessageContaining("owned by");
    }

    @Test
    void aSymbolicLinkIsRefused() throws IOException {
        Path target = Files.createDirectory(base.resolve("target"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path link = Files.createSymbolicLink(base.resolve("link"), target);
        assertThatThrownBy(() -> SoftContext.openShm(config(link)).close())
                .isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining(link.toString())
                .hasMessageContaining("symbolic link");
        assertThat(listNames(target)).as("nothing created behind the link").isEmpty();
    }

    @Test
    void aNewDirectoryIs0700AndEveryFileInItIs0600IncludingTheListenerSocket() throws IOException {
        Path dir = base.resolve("fresh");
        try (SoftContext c = SoftContext.openShm(config(dir))) {
            c.allocPd().allocate(4096, AccessFlags.LOCAL_WRITE);
            c.createQp(c.allocPd(), QpAttributes.create(c.createCq(64)));
            try (CmListener listener = c.listen(new InetSocketAddress("127.0.0.1", 0), 1)) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS)))
                        .isEqualTo("rwx------");
                List<Path> files = list(dir);
                assertThat(files).anyMatch(p -> p.getFileName().toString().startsWith("port-"));
                for (Path f : files) {
                    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS)))
                            .as("mode of %s", f.getFileName()).isEqualTo("rw-------");
                }
            }
        }
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    private static List<String> listNames(Path dir) throws IOException {
        return list(dir).stream().map(p -> p.getFileName().toString()).toList();
    }
}
