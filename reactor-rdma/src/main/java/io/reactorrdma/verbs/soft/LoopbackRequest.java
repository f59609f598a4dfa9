package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.ConnectionRejectedException;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsException;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A connection request between two contexts of one JVM; the client waits on {@link #answer}. */
final class LoopbackRequest implements ConnectionRequest {

    private final SoftListener listener;
    private final SoftQueuePair clientQp;
    private final ByteBuffer clientPrivateData;
    private final InetSocketAddress clientAddress;
    private final CompletableFuture<Object> answer = new CompletableFuture<>();

    LoopbackRequest(SoftListener listener, SoftQueuePair clientQp, ByteBuffer clientPrivateData) {
        this.listener = listener;
        this.clientQp = clientQp;
        this.clientPrivateData = clientPrivateData;
        this.clientAddress = new InetSocketAddress(listener.localAddress.getAddress(), 0);
    }

    @Override
    public ByteBuffer privateData() {
        return clientPrivateData.duplicate();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return clientAddress;
    }

    @Override
    public synchronized CmConnection accept(QueuePair qp, ByteBuffer privateData) {
        SoftContext server = listener.context;
        SoftQueuePair serverQp = server.ownQp(qp);
        serverQp.checkConnectable();
        ByteBuffer pd = SoftContext.privateData(privateData, SoftLimits.MAX_ACCEPT_PRIVATE_DATA, "accept");
        if (answer.isDone()) {
            throw new VerbsException("the connection request was already answered, or the client stopped waiting");
        }
        LoopbackLink serverLink = new LoopbackLink(serverQp, clientQp);
        LoopbackLink clientLink = new LoopbackLink(clientQp, serverQp);
        serverQp.establish(serverLink);
        clientQp.establish(clientLink);
        SoftConnection serverSide = new SoftConnection(server, serverQp, serverLink, listener.localAddress,
                clientAddress, clientPrivateData);
        SoftConnection clientSide = new SoftConnection(clientQp.context, clientQp, clientLink, clientAddress, listener.localAddress, pd);
        if (!answer.complete(clientSide)) {
            clientSide.disconnect();
            serverSide.disconnect();
            throw new VerbsException("the client stopped waiting before the accept");
        }
        server.accepted(serverQp);
        return serverSide;
    }

    @Override
    public synchronized void reject(ByteBuffer privateData) {
        ByteBuffer pd = SoftContext.privateData(privateData, SoftLimits.MAX_REJECT_PRIVATE_DATA, "reject");
        if (!answer.complete(new ConnectionRejectedException("loopback listener " + listener.localAddress
                + " rejected the connection", pd))) {
            throw new VerbsException("the connection request was already answered, or the client stopped waiting");
        }
    }

    CmConnection awaitAnswer(Duration timeout) {
        Object result;
        try {
            result = answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            synchronized (this) {
                if (answer.completeExceptionally(e)) {
                    throw new VerbsException("no answer from loopback listener " + listener.localAddress + " within "
                            + timeout.toMillis() + " ms");
                }
            }
            result = answer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.completeExceptionally(e);
            throw new VerbsException("interrupted while connecting to " + listener.localAddress, e);
        } catch (ExecutionException e) {
            throw new VerbsException("connect to " + listener.localAddress + " failed", e.getCause());
        }
        if (result instanceof ConnectionRejectedException) {
            throw (ConnectionRejectedException) result;
        }
        return (CmConnection) result;
    }
}
