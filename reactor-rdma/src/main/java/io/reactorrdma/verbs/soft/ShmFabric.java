package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRejectedException;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.soft.shared.RegionTableLayout;
import io.reactorrdma.verbs.soft.shared.SharedMemory;
import io.reactorrdma.verbs.soft.shared.ShmDirectory;
import io.reactorrdma.verbs.soft.shared.WakeSocket;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The cross-process fabric. Regions, queue pairs and completion queues are memory-mapped files in
 * the {@link ShmDirectory}; a listener is a UNIX-domain socket {@code port-<port>.sock} there;
 * a connection exchanges one {@link ShmHandshake} each way, after which each side maps the other's
 * queue-pair file and region table and the socket carries only control bytes. The provider thread
 * selects on every connection's socket (a closed socket is a dead peer) and accepts the
 * connections peers make to our completion queues' {@link WakeSocket}s.
 */
final class ShmFabric extends SoftFabric {

    private static final long HANDSHAKE_READ_NANOS = 5_000_000_000L;

    private final SoftContext context;
    private final ShmDirectory directory;
    private final ByteBuffer regionTable;
    private final Selector selector;
    private final ConcurrentLinkedQueue<ShmLink> toRegister = new ConcurrentLinkedQueue<>();
    /** Completion queues' wake sockets, open; the provider thread accepts their connections. */
    private final List<WakeSocket> wakeSockets = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<WakeSocket> wakeSocketsToWatch = new ConcurrentLinkedQueue<>();
    /** Wake-ups that reached a poller through a control socket and this thread (peers without a wake socket). */
    private final java.util.concurrent.atomic.AtomicLong relayedWakeups = new java.util.concurrent.atomic.AtomicLong();
    private final List<ShmLink> links = new CopyOnWriteArrayList<>();
    private final List<ServerSocketChannel> servers = new CopyOnWriteArrayList<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(256);
    /** Memory of closed regions, waiting for {@link #unmapRetired}. */
    private final ConcurrentLinkedQueue<ByteBuffer> retired = new ConcurrentLinkedQueue<>();
    /** Retired memory taken from {@link #retired} and not yet unmapped; guarded by this. */
    private final ArrayList<ByteBuffer> toUnmap = new ArrayList<>();
    /**
     * Reads the handshakes of accepted clients, off the accept threads: a client that connects and
     * says nothing holds one of these threads until its handshake deadline, not the accepts of others.
     */
    private final ExecutorService handshakes = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "reactor-rdma-shm-handshake");
        t.setDaemon(true);
        return t;
    });

    ShmFabric(SoftContext context) {
        this.context = context;
        this.directory = new ShmDirectory(context.config.shmDirectory(), context.id);
        this.regionTable = directory.create("regions", RegionTableLayout.size(context.config.maxRegions()));
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            directory.close();
            throw new VerbsException("cannot open a selector for the shm fabric: " + e.getMessage(), e);
        }
    }

    ShmDirectory directory() {
        return directory;
    }

    @Override
    String name() {
        return "shm";
    }

    @Override
    ByteBuffer allocateStructure(String name, int size) {
        return directory.create(name, size);
    }

    @Override
    void releaseStructure(String name) {
        directory.delete(name);
    }

    @Override
    WakeSocket openWakeSocket(int cqNumber) {
        WakeSocket socket = WakeSocket.open(directory, context.id, cqNumber);
        if (socket != null) {
            wakeSockets.add(socket);
            wakeSocketsToWatch.add(socket);
            selector.wakeup();
        }
        return socket;
    }

    @Override
    void closeWakeSocket(WakeSocket socket) {
        wakeSockets.remove(socket);
        socket.close(); // its listener's key in our selector goes with the channel
    }

    /** The path of completion queue {@code cqNumber}'s wake socket in context {@code contextId}. */
    Path wakeSocketPath(String contextId, int cqNumber) {
        return directory.file(contextId, WakeSocket.fileName(cqNumber));
    }

    /** A wake-up came as a control byte: counted (tests), then the provider thread wakes the poller. */
    void countRelayedWakeup() {
        relayedWakeups.incrementAndGet();
    }

    long relayedWakeups() {
        return relayedWakeups.get();
    }

    @Override
    ByteBuffer allocateRegionMemory(int key, int size) {
        return directory.create("r" + Integer.toHexString(key), size);
    }

    @Override
    void publishRegion(SoftMemoryRegion region) {
        int e = RegionTableLayout.entryOffset(region.index);
        regionTable.putInt(e + RegionTableLayout.E_ACCESS, region.access);
        regionTable.putInt(e + RegionTableLayout.E_PD, region.pdId);
        regionTable.putInt(e + RegionTableLayout.E_LENGTH, region.length);
        regionTable.putLong(e + RegionTableLayout.E_ADDRESS, region.address);
        SharedMemory.putLongRelease(regionTable, e + RegionTableLayout.E_KEY_AND_STATE, RegionTableLayout.validWord(region.key));
    }

    @Override
    void unpublishRegion(SoftMemoryRegion region) {
        SharedMemory.putLongRelease(regionTable, RegionTableLayout.entryOffset(region.index) + RegionTableLayout.E_KEY_AND_STATE, 0L);
        // Unlinked here; peers' mappings stay valid until they drop them (ShmLink unmaps stale
        // ones). Our own mapping goes with releaseRegionMemory when the region was closed, or
        // with the GC after a context or PD close, so that late readers there see stale memory.
        directory.delete("r" + Integer.toHexString(region.key));
    }

    @Override
    void releaseRegionMemory(ByteBuffer memory) {
        retired.add(memory);
        unmapRetired();
    }

    /**
     * Unmaps the memory of closed regions, so the pages of their unlinked files go back to the
     * tmpfs at once instead of whenever the GC collects the buffers. A send queue copies from a
     * local region only after checking (volatile reads) that it is still registered, and only while
     * it owns the queue (an atomic flag). Every buffer taken here was deregistered before; so if,
     * after taking them and a full fence, no send queue is being run, none can still be copying from
     * them and none will start to. If one is being run, the provider thread tries again on its
     * next turn.
     */
    synchronized void unmapRetired() {
        ByteBuffer b;
        while ((b = retired.poll()) != null) {
            toUnmap.add(b);
        }
        if (toUnmap.isEmpty()) {
            return;
        }
        SharedMemory.fullFence();
        if (context.anySendQueueRunning()) {
            return; // the next close, or the provider thread's next turn, tries again
        }
        for (ByteBuffer m : toUnmap) {
            SharedMemory.unmap(m);
        }
        toUnmap.clear();
    }

    // ------------------------------------------------------------ connection management

    static void checkLocal(InetSocketAddress address) {
        InetAddress a = address.getAddress();
        if (a == null) {
            throw new VerbsException("cannot resolve host '" + address.getHostString() + "'");
        }
        boolean local = a.isAnyLocalAddress() || a.isLoopbackAddress();
        if (!local) {
            try {
                local = NetworkInterface.getByInetAddress(a) != null;
            } catch (SocketException e) {
                local = false;
            }
        }
        if (!local) {
            throw new VerbsException("the shm fabric connects processes on one host, and " + address.getHostString()
                    + " is not an address of this host; use the disni provider (RDMA hardware) to reach other hosts");
        }
    }

    @Override
    CmListener listen(InetSocketAddress address, int backlog) {
        checkLocal(address);
        int port = address.getPort();
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        ServerSocketChannel server = null;
        int bound = port;
        for (int attempt = 0; server == null; attempt++) {
            if (port == 0) {
                bound = 20000 + ThreadLocalRandom.current().nextInt(40000);
            }
            server = bind(bound, port != 0 || attempt >= 64);
        }
        servers.add(server);
        InetSocketAddress local = new InetSocketAddress(address.getAddress(), bound);
        Path socketPath = directory.socket(bound);
        ServerSocketChannel srv = server;
        directory.markListener(bound);
        int markedPort = bound;
        SoftListener listener = new SoftListener(context, local, backlog, () -> {
            servers.remove(srv);
            closeQuietly(srv);
            SharedMemory.deleteQuietly(socketPath);
            directory.delete(ShmDirectory.LISTENER_MARK + markedPort);
        });
        Semaphore pending = new Semaphore(backlog);
        Thread acceptor = new Thread(() -> acceptLoop(srv, listener, pending), "reactor-rdma-shm-listener-" + bound);
        acceptor.setDaemon(true);
        acceptor.start();
        return listener;
    }

    /** Binds the socket of {@code port}; a socket file nobody answers on is a dead process's leftover and is replaced. */
    private ServerSocketChannel bind(int port, boolean mustSucceed) {
        Path path = directory.socket(port);
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                try {
                    server.bind(UnixDomainSocketAddress.of(path));
                    ShmDirectory.makePrivate(path); // bind creates it with the umask's mode; connecting needs write access
                    return server;
                } catch (IOException e) {
                    server.close();
                    if (!Files.exists(path)) {
                        throw e;
                    }
                }
                if (isAnswering(path)) {
                    break;
                }
                SharedMemory.deleteQuietly(path); // stale: its listener died
            } catch (IOException e) {
                throw new VerbsException("cannot listen on shm port " + port + " (" + path + "): " + e.getMessage(), e);
            }
        }
        if (mustSucceed) {
            throw new VerbsException("shm port " + port + " is in use by a live listener (" + path + "); pick another port or 0");
        }
        return null;
    }

    private static boolean isAnswering(Path path) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Accepts clients and hands each one's handshake to {@link #handshakes}; at most {@code pending}
     * (the backlog) handshakes are read at once. With that many under way the loop accepts no more
     * until one ends (each within {@link #HANDSHAKE_READ_NANOS}): later clients wait in the
     * socket's own listen queue, as TCP's backlog holds them, rather than being turned away.
     */
    private void acceptLoop(ServerSocketChannel server, SoftListener listener, Semaphore pending) {
        while (server.isOpen()) {
            try {
                if (!pending.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue; // re-checks that the listener is still open
                }
            } catch (InterruptedException e) {
                return;
            }
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException closed) {
                pending.release();
                return;
            } catch (IOException e) {
                pending.release();
                if (!server.isOpen()) {
                    return;
                }
                continue;
            }
            try {
                handshakes.execute(() -> {
                    try {
                        handshake(ch, listener);
                    } finally {
                        pending.release();
                    }
                });
            } catch (RejectedExecutionException closing) {
                pending.release();
                closeQuietly(ch);
            }
        }
    }

    /** Reads a client's CONNECT (within {@link #HANDSHAKE_READ_NANOS}) and queues its request. */
    private void handshake(SocketChannel ch, SoftListener listener) {
        try {
            ch.configureBlocking(false);
            ShmHandshake hello = ShmHandshake.read(ch, System.nanoTime() + HANDSHAKE_READ_NANOS);
            if (hello.type != ShmHandshake.CONNECT) {
                throw new IOException("expected a CONNECT handshake, got type " + hello.type);
            }
            if (hello.privateData.remaining() > SoftLimits.MAX_CONNECT_PRIVATE_DATA) {
                throw new IOException("connect private data too long");
            }
            ShmRequest request = new ShmRequest(this, listener, ch, hello);
            if (!listener.offer(request)) {
                request.reject(ByteBuffer.allocate(0));
            }
        } catch (IOException | RuntimeException e) {
            // A probe, a client that gave up, or garbage: it gets no connection and loses nothing of ours.
            closeQuietly(ch);
        }
    }

    @Override
    CmConnection connect(InetSocketAddress address, SoftQueuePair qp, ByteBuffer privateData, Duration timeout) {
        checkLocal(address);
        Path path = directory.socket(address.getPort());
        long deadline = System.nanoTime() + timeout.toNanos();
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                ch.connect(UnixDomainSocketAddress.of(path));
            } catch (ConnectException | java.nio.file.NoSuchFileException e) {
                throw new VerbsException("nothing listens on shm port " + address.getPort() + " (no live socket at " + path + ")");
            } catch (IOException e) {
                if (!Files.exists(path)) {
                    throw new VerbsException("nothing listens on shm port " + address.getPort() + " (no socket at " + path + ")");
                }
                throw e;
            }
            ch.configureBlocking(false);
            ShmHandshake.write(ch, ShmHandshake.of(ShmHandshake.CONNECT, qp, privateData).encode(), deadline);
            ShmHandshake answer = ShmHandshake.read(ch, deadline);
            if (answer.type == ShmHandshake.REJECT) {
                closeQuietly(ch);
                throw new ConnectionRejectedException("shm listener on port " + address.getPort() + " rejected the connection",
                        answer.privateData);
            }
            if (answer.type != ShmHandshake.ACCEPT) {
                throw new IOException("expected ACCEPT or REJECT, got handshake type " + answer.type);
            }
            ShmLink link = ShmLink.open(this, qp, ch, answer);
            qp.establish(link);
            InetSocketAddress local = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            SoftConnection c = new SoftConnection(context, qp, link, local, address, answer.privateData);
            register(link);
            return c;
        } catch (VerbsException e) {
            closeQuietly(ch);
            throw e;
        } catch (IOException e) {
            closeQuietly(ch);
            throw new VerbsException("connect to shm port " + address.getPort() + " failed: " + e.getMessage(), e);
        }
    }

    /** Hands a new link's socket to the provider thread. */
    void register(ShmLink link) {
        links.add(link);
        toRegister.add(link);
        selector.wakeup();
    }

    void unregister(ShmLink link) {
        links.remove(link);
    }

    // ------------------------------------------------------------ provider thread

    @Override
    void awaitEvents(long nanos) {
        unmapRetired();
        ShmLink pending;
        while ((pending = toRegister.poll()) != null) {
            try {
                pending.channel.register(selector, SelectionKey.OP_READ, pending);
            } catch (ClosedChannelException e) {
                pending.onSocketClosed("closed before it was watched");
            }
        }
        WakeSocket wake;
        while ((wake = wakeSocketsToWatch.poll()) != null) {
            try {
                wake.server.register(selector, SelectionKey.OP_ACCEPT, wake);
            } catch (ClosedChannelException e) {
                // its completion queue closed meanwhile
            }
        }
        try {
            long millis = Math.max(1, nanos / 1_000_000);
            if (selector.select(millis) == 0) {
                return;
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException e) {
            return;
        }
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            SelectionKey key = it.next();
            it.remove();
            if (key.attachment() instanceof WakeSocket) {
                ((WakeSocket) key.attachment()).acceptAll();
            } else {
                readControl(key, (ShmLink) key.attachment());
            }
        }
    }

    private void readControl(SelectionKey key, ShmLink link) {
        try {
            readBuffer.clear();
            int n = link.channel.read(readBuffer);
            if (n < 0) {
                key.cancel();
                link.onSocketClosed("end of stream");
                return;
            }
            for (int i = 0; i < n; i++) {
                link.onControl(readBuffer.get(i));
            }
        } catch (IOException e) {
            key.cancel();
            link.onSocketClosed(e.getMessage());
        }
    }

    @Override
    void wakeProviderThread() {
        selector.wakeup();
    }

    @Override
    void vanish() {
        handshakes.shutdownNow();
        for (ShmLink l : links) {
            l.close();
        }
        for (WakeSocket w : wakeSockets) {
            w.vanish(); // a killed process's sockets close with it
        }
        for (ServerSocketChannel s : servers) {
            closeQuietly(s);
        }
    }

    @Override
    void close() {
        handshakes.shutdownNow();
        for (ShmLink l : links) {
            l.close();
        }
        for (WakeSocket w : wakeSockets) {
            w.close();
        }
        for (ServerSocketChannel s : servers) {
            closeQuietly(s);
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        directory.close();
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
