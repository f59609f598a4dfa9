package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** A connection request that came over an shm listener's socket; answered once. */
final class ShmRequest implements ConnectionRequest {

    private static final long ANSWER_WRITE_NANOS = 5_000_000_000L;

    private final ShmFabric fabric;
    private final SoftListener listener;
    private final SocketChannel channel;
    private final ShmHandshake hello;
    private final InetSocketAddress clientAddress;
    private boolean answered;

    ShmRequest(ShmFabric fabric, SoftListener listener, SocketChannel channel, ShmHandshake hello) {
        this.fabric = fabric;
        this.listener = listener;
        this.channel = channel;
        this.hello = hello;
        this.clientAddress = new InetSocketAddress(listener.localAddress.getAddress(), 0);
    }

    @Override
    public ByteBuffer privateData() {
        return hello.privateData.duplicate();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return clientAddress;
    }

    @Override
    public synchronized CmConnection accept(QueuePair qp, ByteBuffer privateData) {
        SoftQueuePair serverQp = listener.context.ownQp(qp);
        serverQp.checkConnectable();
        ByteBuffer pd = SoftContext.privateData(privateData, SoftLimits.MAX_ACCEPT_PRIVATE_DATA, "accept");
        checkUnanswered();
        answered = true;
        ShmLink link;
        try {
            link = ShmLink.open(fabric, serverQp, channel, hello);
        } catch (IOException e) {
            closeChannel();
            throw ShmLink.mappingFailed("shm context " + hello.contextId + " qp " + hello.qpn, e);
        }
        serverQp.establish(link);
        try {
            ShmHandshake.write(channel, ShmHandshake.of(ShmHandshake.ACCEPT, serverQp, pd).encode(),
                    System.nanoTime() + ANSWER_WRITE_NANOS);
        } catch (IOException e) {
            serverQp.enterError("the client went away during the handshake: " + e.getMessage());
            closeChannel();
            throw new VerbsException("the client went away before the accept reached it: " + e.getMessage(), e);
        }
        SoftConnection c = new SoftConnection(listener.context, serverQp, link, listener.localAddress, clientAddress, hello.privateData);
        fabric.register(link);
        listener.context.accepted(serverQp);
        return c;
    }

    @Override
    public synchronized void reject(ByteBuffer privateData) {
        ByteBuffer pd = SoftContext.privateData(privateData, SoftLimits.MAX_REJECT_PRIVATE_DATA, "reject");
        checkUnanswered();
        answered = true;
        try {
            ShmHandshake.write(channel, ShmHandshake.reject(listener.context.id, pd).encode(), System.nanoTime() + ANSWER_WRITE_NANOS);
        } catch (IOException ignored) {
            // the client gave up; nothing to tell
        } finally {
            closeChannel();
        }
    }

    private void checkUnanswered() {
        if (answered) {
            throw new IllegalStateException("the connection request was already answered");
        }
    }

    private void closeChannel() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
