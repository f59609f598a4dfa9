package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.VerbsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Memory that cannot be backed is an error, never a fault: region files are
 * preallocated, so a full tmpfs fails {@code allocate} with a clear {@link VerbsException}
 * instead of a SIGBUS when a page is first touched.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShmMemoryFaultTest {

    private Path mountPoint;

    @AfterEach
    void cleanUp() throws Exception {
        if (mountPoint != null) {
            // lazy: this JVM may still map files there until the GC unmaps them
            new ProcessBuilder("umount", "-l", mountPoint.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(mountPoint);
        }
    }

    /**
     * A real 8 MiB tmpfs (needs root and mount permission; skipped where the build may not mount).
     * Before the fix the 16 MiB allocation "succeeded" as a sparse file, and the first write past
     * the tmpfs's size raised SIGBUS (InternalError) in whichever process touched it.
     */
    @Test
    void aFullTmpfsFailsAllocationWithAClearErrorNamingTheDirectoryAndTheBytes() throws Exception {
        mountPoint = Files.createTempDirectory("reactor-rdma-tiny-tmpfs-");
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", mountPoint.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes());
        boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        if (!mounted) {
            Files.deleteIfExists(mountPoint);
            mountPoint = null;
        }
        assumeTrue(mounted, "cannot mount a tmpfs here (needs root and mount permission): " + out);
        Path shmDir = mountPoint.resolve("shm");
        try (SoftContext ctx = SoftContext.openShm(SoftConfig.defaults().withShmDirectory(shmDir).withMaxRegions(64))) {
            ProtectionDomain pd = ctx.allocPd();
            int size = 16 << 20;
            assertThatThrownBy(() -> pd.allocate(size, AccessFlags.LOCAL_WRITE))
                    .isInstanceOf(VerbsException.class)
                    .hasMessageContaining(shmDir.toString())
                    .hasMessageContaining(Integer.toString(size))
                    .hasMessageContaining("no room");
            try (var files = Files.list(shmDir)) {
                assertThat(files.filter(p -> p.getFileName().toString().matches(".*\\.r[0-9a-f]+")))
                        .as("no partial region file left").isEmpty();
            }
            // the space the failed allocation took is back: a region that fits still works, every byte of it
            var mr = pd.allocate(4 << 20, AccessFlags.LOCAL_WRITE);
            var b = mr.buffer();
            for (int i = 0; i < b.capacity(); i += 4096) {
                b.put(i, (byte) 1);
            }
            mr.close();
        }
    }
}
