package io.reactorrdma.verbs.soft.shared;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.function.Consumer;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A completion queue's wake-up socket on the shm fabric: a UNIX-domain listener
 * {@code <context>.cq<n>.wake} that every peer queue pair sending to this queue connects to once
 * (at connect), and a {@link Selector} over those connections in which the queue's blocked poller
 * itself waits. A peer that finds the queue armed writes one byte on its connection; the kernel
 * wakes the poller straight out of {@code epoll_wait} — one context switch per wake-up, as epoll
 * is for TCP, where a byte on the link's control socket needed the provider thread to read it
 * and then unpark the poller (two). The provider thread only accepts the connections.
 *
 * <p>In-process notifications (our own send completions, errors, a relayed wake-up) reach the
 * poller through {@link Selector#wakeup()}. Bytes are drained by the poller as they wake it; any
 * byte counts as a wake-up (a stale one costs one empty turn, never a lost wake-up: the
 * arm/publish handshake lives in shared memory, the byte only ends the wait).
 */
public final class WakeSocket implements AutoCloseable {

    private static final Logger LOG = Loggers.getLogger(WakeSocket.class);
    /** Pending connections the listener queues before the provider thread accepts them. */
    static final int DEFAULT_BACKLOG = 256;
    /**
     * Polls of the queue between two {@link #reap}s (a power of two): a poller that never blocks
     * (a spinning or always-busy thread domain) still closes the connections of peers that left.
     */
    public static final int DEFAULT_REAP_INTERVAL_POLLS = 1 << 16;
    /** Bytes read per {@code read} while draining a connection. */
    private static final int DRAIN_BUFFER_BYTES = 64;

    public final ServerSocketChannel server;
    private final Path path;
    private final Selector selector;
    private final ByteBuffer drain = ByteBuffer.allocateDirect(DRAIN_BUFFER_BYTES);
    private final Consumer<SelectionKey> onReady = this::drain;
    /** Set by {@link #drain} during one {@link #await}: a peer's byte arrived. Poller thread only. */
    private boolean woken;
    /** Wake-ups that arrived as a peer's byte on this socket (poller thread writes; for tests and statistics). */
    private volatile long socketWakeups;
    /** Closed by {@link #vanish()}: the queue stays open and its poller may go on waiting. */
    private volatile boolean vanished;
    /**
     * Set first by {@link #close()}: a connection the provider thread registers after that is closed
     * by the provider thread itself (close() may have looked at the keys before it was there).
     */
    private volatile boolean closing;
    /** Tests: run after the provider thread accepted a connection, before it registers it; and in close(), before the selector closes. */
    public volatile Runnable afterAccept;
    public volatile Runnable beforeSelectorClose;

    private WakeSocket(ServerSocketChannel server, Path path, Selector selector) {
        this.server = server;
        this.path = path;
        this.selector = selector;
    }

    /** The socket's file name (after the context id) for completion queue {@code cqNumber}. */
    public static String fileName(int cqNumber) {
        return "cq" + cqNumber + ".wake";
    }

    /**
     * Binds the wake socket of completion queue {@code cqNumber}; null when it cannot be bound
     * (e.g. the directory's path is too long for a UNIX socket address): the queue's peers then
     * wake it through the link's control socket and the provider thread, as before.
     */
    public static WakeSocket open(ShmDirectory directory, String contextId, int cqNumber) {
        Path path = directory.file(contextId, fileName(cqNumber));
        ServerSocketChannel server = null;
        Selector selector = null;
        try {
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path), DEFAULT_BACKLOG);
            ShmDirectory.makePrivate(path);
            server.configureBlocking(false);
            selector = Selector.open();
            return new WakeSocket(server, path, selector);
        } catch (IOException | RuntimeException e) {
            LOG.warn("completion queue cq{}: no wake-up socket at {} ({}); its peers wake it "
                    + "through the provider thread (one more context switch per wake-up). A shorter reactor.rdma.soft.shmDir "
                    + "avoids this when the path is too long", cqNumber, path, e.toString());
            closeQuietly(selector);
            closeQuietly(server);
            SharedMemory.deleteQuietly(path);
            return null;
        }
    }

    /**
     * Connects to a peer's wake socket without blocking; null when it is not there or not
     * accepting now (the caller then wakes the peer through the control socket).
     */
    public static SocketChannel connect(Path path) {
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.configureBlocking(false);
            if (ch.connect(UnixDomainSocketAddress.of(path))) {
                return ch; // a UNIX-domain connect completes at once or fails (a full backlog): it never pends
            }
        } catch (IOException | RuntimeException e) {
            // not there (an older peer, no socket could be bound) or its backlog is full
        }
        closeQuietly(ch);
        return null;
    }

    /** Provider thread: accepts every pending connection and hands it to the poller's selector. */
    public void acceptAll() {
        while (true) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                return;
            }
            if (ch == null) {
                return;
            }
            Runnable hook = afterAccept;
            if (hook != null) {
                hook.run();
            }
            try {
                ch.configureBlocking(false);
                ch.register(selector, SelectionKey.OP_READ);
                if (closing) {
                    // registered, then read the flag; close() set it, then reads the keys: one of the two closes it
                    closeQuietly(ch);
                    return;
                }
                selector.wakeup(); // a poller already waiting selects again, now with this connection
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch); // the queue closed meanwhile
            }
        }
    }

    /**
     * Poller: waits up to {@code nanos} (rounded up to a millisecond) for a peer's byte or a
     * {@link #wakeup(Thread)}; true when a peer's byte woke it. Allocation-free.
     */
    public boolean await(long nanos) {
        woken = false;
        try {
            selector.select(onReady, Math.max(1, (nanos + 999_999) / 1_000_000));
        } catch (IOException | ClosedSelectorException e) {
            if (vanished) {
                // the context vanished under a poller that goes on waiting: park, do not spin on the closed selector
                java.util.concurrent.locks.LockSupport.parkNanos(this, nanos);
            }
            return false; // otherwise the queue is closing: its poller sees that at once
        }
        return woken;
    }

    /**
     * Poller, at the start of a poll: drains what is readable without waiting and closes the
     * connections of peers that left. Draining a byte here loses no wake-up: its completion was
     * published before it, so the poll that follows sees it. Allocation-free.
     */
    public void reap() {
        try {
            selector.selectNow(onReady);
        } catch (IOException | ClosedSelectorException e) {
            // closing
        }
    }

    private void drain(SelectionKey key) {
        SocketChannel ch = (SocketChannel) key.channel();
        boolean got = false;
        try {
            int n;
            do {
                drain.clear();
                n = ch.read(drain);
                got |= n > 0;
            } while (n == DRAIN_BUFFER_BYTES);
            if (n < 0) {
                key.cancel(); // the peer's queue pair closed its connection (or its process ended)
                closeQuietly(ch);
            }
        } catch (IOException e) {
            key.cancel();
            closeQuietly(ch);
        }
        if (got) {
            woken = true;
            socketWakeups++; // only the poller thread writes it
        }
    }

    /** Ends {@code waiter}'s wait in {@link #await} (or its next one, if none is under way). Any thread. */
    public void wakeup(Thread waiter) {
        if (selector.isOpen()) {
            selector.wakeup();
        } else {
            java.util.concurrent.locks.LockSupport.unpark(waiter); // closed: await parks
        }
    }

    /** Open connections of peers (tests; allocates). */
    public int connections() {
        int n = 0;
        for (SelectionKey k : selector.keys()) {
            if (k.isValid() && k.channel().isOpen()) {
                n++;
            }
        }
        return n;
    }

    public long socketWakeups() {
        return socketWakeups;
    }

    /**
     * Test hook ({@link io.reactorrdma.verbs.soft.SoftContext#vanish()}): closes as a killed process's
     * socket would close, the queue staying open.
     */
    public void vanish() {
        vanished = true;
        close();
    }

    /**
     * Closes the listener (its file goes), the connections peers made and the selector; once. The
     * selector's key set is concurrent (JDK 11+), so reading it while the provider thread registers
     * is safe; a connection registered after that read is closed by the provider thread.
     */
    @Override
    public synchronized void close() {
        if (!server.isOpen()) {
            return;
        }
        closing = true;
        closeQuietly(server);
        SharedMemory.deleteQuietly(path);
        selector.wakeup();
        try {
            for (SelectionKey k : selector.keys()) {
                closeQuietly(k.channel());
            }
        } catch (ClosedSelectorException alreadyClosed) {
            return;
        }
        Runnable hook = beforeSelectorClose;
        if (hook != null) {
            hook.run();
        }
        closeQuietly(selector);
    }

    private static void closeQuietly(java.io.Closeable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
