package io.reactorrdma.verbs.soft;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import io.reactorrdma.verbs.soft.shared.ShmDirectory;
import io.reactorrdma.verbs.soft.shared.WakeSocket;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WakeSocket#close()} on one thread while the provider thread accepts a peer's connection:
 * whatever the interleaving, the accepted connection is closed with the socket (no descriptor
 * left open). The interleaving is pinned with the socket's hooks: the provider thread accepted
 * before the close, and registers the connection after the close closed the connections it found
 * and before it closes the selector.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WakeSocketCloseTest {

    private final Path dir = Paths.get("/dev/shm", "reactor-rdma-wakeclose-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    private final String id = ProcessHandle.current().pid() + "-1";
    private ShmDirectory directory;

    @AfterEach
    void cleanup() throws IOException {
        if (directory != null) {
            directory.close();
        }
        ShmTestSupport.deleteTree(dir);
    }

    @Test
    void aConnectionAcceptedAsTheSocketClosesIsClosedWithIt() throws Exception {
        directory = new ShmDirectory(dir, id);
        WakeSocket socket = WakeSocket.open(directory, id, 0);
        assertThat(socket).as("the wake socket").isNotNull();
        SocketChannel peer = WakeSocket.connect(directory.file(id, WakeSocket.fileName(0)));
        assertThat(peer).as("the peer's connection").isNotNull();
        CountDownLatch accepted = new CountDownLatch(1);
        CountDownLatch connectionsClosed = new CountDownLatch(1);
        CountDownLatch registered = new CountDownLatch(1);
        socket.afterAccept = () -> {
            accepted.countDown();
            await(connectionsClosed);
        };
        socket.beforeSelectorClose = () -> {
            connectionsClosed.countDown();
            await(registered);
        };
        Thread provider = new Thread(() -> {
            try {
                socket.acceptAll();
            } finally {
                registered.countDown();
            }
        }, "test-provider");
        provider.start();
        assertThat(accepted.await(30, TimeUnit.SECONDS)).as("the provider thread accepted").isTrue();
        socket.close();
        provider.join(TimeUnit.SECONDS.toMillis(30));
        try {
            assertThat(closedByTheOtherEnd(peer)).as("the accepted connection was closed (the peer reads its end)").isTrue();
        } finally {
            peer.close();
        }
    }

    /** Reads until the end of stream, for up to 10 s. */
    private static boolean closedByTheOtherEnd(SocketChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(16);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            b.clear();
            if (ch.read(b) < 0) {
                return true;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        return false;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
