package io.reactorrdma.verbs.disni;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.disni.cm.SideChannel;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/** A client whose handshake HELLO arrived; answered once, with accept or reject. */
final class DisniConnectionRequest implements ConnectionRequest {

    private final DisniListener listener;
    private final Socket socket;
    private final InetSocketAddress remote;
    private final int peerRnrRetry;
    private final ByteBuffer privateData;
    private boolean answered;

    DisniConnectionRequest(DisniListener listener, Socket socket, InetSocketAddress remote, int peerRnrRetry, ByteBuffer privateData) {
        this.listener = listener;
        this.socket = socket;
        this.remote = remote;
        this.peerRnrRetry = peerRnrRetry;
        this.privateData = privateData;
    }

    /** The client queue pair's rnrRetry, from its HELLO: what rdma_accept's rnr_retry_count must carry. */
    int peerRnrRetry() {
        return peerRnrRetry;
    }

    @Override
    public ByteBuffer privateData() {
        return privateData.duplicate();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public CmConnection accept(QueuePair qp, ByteBuffer data) {
        SideChannel.checkLength(SideChannel.ACCEPT, data, "accept");
        if (!(qp instanceof DisniQueuePair)) {
            throw new IllegalArgumentException("the queue pair must come from the listener's disni context");
        }
        answer();
        return listener.accept(this, (DisniQueuePair) qp, data);
    }

    @Override
    public void reject(ByteBuffer data) {
        SideChannel.checkLength(SideChannel.REJECT, data, "reject");
        answer();
        try {
            send(SideChannel.REJECT, data);
        } catch (IOException e) {
            throw new VerbsException("could not send the reject to " + remote + ": " + e.getMessage(), e);
        } finally {
            closeSocket();
        }
    }

    private synchronized void answer() {
        if (answered) {
            throw new IllegalStateException("the request from " + remote + " was already answered");
        }
        answered = true;
    }

    void send(byte type, ByteBuffer data) throws IOException {
        send(type, SideChannel.NO_RNR, data);
    }

    void send(byte type, int rnrRetry, ByteBuffer data) throws IOException {
        SideChannel.write(new DataOutputStream(socket.getOutputStream()), type, rnrRetry, data);
    }

    void closeSocket() {
        DisniListener.closeQuietly(socket);
    }
}
