package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CmListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener's socket file {@code port-N.sock} carries no context id, so the reclaim of a dead
 * context's files at the next start did not cover it: a listener killed with SIGKILL (the soak's
 * killed server) left its socket file in the shm directory until someone bound that very port again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmStaleListenerTest {

    private Path dir;

    @BeforeEach
    void createDirectory() throws Exception {
        dir = Files.createDirectory(Paths.get("/dev/shm", "reactor-rdma-stale-" + ProcessHandle.current().pid() + "-" + System.nanoTime()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    @AfterEach
    void deleteDirectory() throws Exception {
        ShmTestSupport.deleteTree(dir);
    }

    @Test
    void theNextStartDeletesTheSocketFileOfADeadListenerAndKeepsALiveOne() throws Exception {
        // a dead listener: bound, then gone without unlinking (as after SIGKILL): the file stays, nobody answers
        Path dead = dir.resolve("port-4711.sock");
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(dead));
        s.close();
        assertThat(dead).exists();
        try (SoftContext live = SoftContext.openShm(SoftConfig.defaults().withShmDirectory(dir))) {
            CmListener listener = live.listen(new InetSocketAddress("127.0.0.1", 4712), 8);
            Path alive = dir.resolve("port-4712.sock");
            assertThat(alive).exists();
            SoftContext.openShm(SoftConfig.defaults().withShmDirectory(dir)).close();
            assertThat(dead).as("the dead listener's socket file after the next start").doesNotExist();
            assertThat(alive).as("a live listener's socket file").exists();
            try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                probe.connect(UnixDomainSocketAddress.of(alive));
            }
            listener.close();
        }
    }
}
