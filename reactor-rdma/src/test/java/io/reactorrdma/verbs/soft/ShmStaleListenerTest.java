package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.soft.shared.ShmDirectory;
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
import java.nio.file.LinkOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener's socket file {@code port-N.sock} carries no context id, so the reclaim of a dead
 * context's files at the next start did not cover it: a listener killed with SIGKILL (the soak's
 * killed server) left its socket file in the shm directory until someone bound that very port again.
 * A listener now leaves a mark ({@code <id>.listener-<port>}, the socket file's identity) that the
 * reclaim follows — no probing of live listeners, which would take one of their handshake slots.
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
        // a listener killed with SIGKILL: its context's unlocked lock file, its mark, and a socket file nobody answers on
        Path dead = dir.resolve("port-4711.sock");
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(dead));
        s.close();
        Files.createFile(dir.resolve("999999-dead.lock"));
        Files.writeString(dir.resolve("999999-dead." + ShmDirectory.LISTENER_MARK + "4711"), Files.readAttributes(dead,
                BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey().toString());
        try (SoftContext live = SoftContext.openShm(SoftConfig.defaults().withShmDirectory(dir))) {
            CmListener listener = live.listen(new InetSocketAddress("127.0.0.1", 4712), 1);
            Path alive = dir.resolve("port-4712.sock");
            assertThat(dir.resolve(live.id + "." + ShmDirectory.LISTENER_MARK + "4712")).as("the live listener's mark").exists();
            SoftContext.openShm(SoftConfig.defaults().withShmDirectory(dir)).close();
            assertThat(dead).as("the dead listener's socket file after the next start").doesNotExist();
            assertThat(alive).as("a live listener's socket file").exists();
            try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                client.connect(UnixDomainSocketAddress.of(alive));
            }
            listener.close();
            assertThat(dir.resolve(live.id + "." + ShmDirectory.LISTENER_MARK + "4712")).as("the mark after close").doesNotExist();
        }
    }

    @Test
    void aDeadListenersMarkNeverDeletesALaterListenersSocketOnTheSamePort() throws Exception {
        try (SoftContext live = SoftContext.openShm(SoftConfig.defaults().withShmDirectory(dir))) {
            CmListener listener = live.listen(new InetSocketAddress("127.0.0.1", 4713), 1);
            Files.createFile(dir.resolve("999998-dead.lock"));
            Files.writeString(dir.resolve("999998-dead.listener-4713"), "(dev=0,ino=0)"); // the dead one's file, since replaced
            SoftContext.openShm(SoftConfig.defaults().withShmDirectory(dir)).close();
            assertThat(dir.resolve("999998-dead.listener-4713")).as("the dead context's mark").doesNotExist();
            assertThat(dir.resolve("port-4713.sock")).as("the live listener's socket file").exists();
            listener.close();
        }
    }
}
