package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.ConnectionRejectedException;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmEvent;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The events of one CM id while a thread sets its connection up: the CM thread adds them, the connecting or
 * accepting thread awaits the one each step answers with. Once established, {@link #handOver} passes what came in
 * between and everything later to the connection. Connection setup only: not on the data path.
 */
final class CmEvents implements Consumer<CmEvent> {

    private final ArrayDeque<CmEvent> events = new ArrayDeque<>();
    private Consumer<CmEvent> next;

    /** CM thread. */
    @Override
    public synchronized void accept(CmEvent event) {
        if (next != null) {
            next.accept(event);
        } else {
            events.add(event);
            notifyAll();
        }
    }

    /**
     * Waits for {@code type}; any other event first fails the step with what it means.
     *
     * @throws ConnectionRejectedException when the peer rejected, with its private data
     * @throws VerbsException on any other event, or when {@code deadline} passes
     */
    synchronized CmEvent await(int type, long deadline, String peer) {
        while (events.isEmpty()) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new VerbsException("connection to " + peer + " timed out waiting for " + name(type));
            }
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new VerbsException("interrupted while connecting to " + peer, e);
            }
        }
        CmEvent e = events.poll();
        if (e.type() == type) {
            return e;
        }
        throw unexpected(e, type, peer);
    }

    /** Passes the events not taken, and every later one, to {@code connection}. */
    synchronized void handOver(Consumer<CmEvent> connection) {
        CmEvent e;
        while ((e = events.poll()) != null) {
            connection.accept(e);
        }
        next = connection;
    }

    private static VerbsException unexpected(CmEvent e, int expected, String peer) {
        return switch (e.type()) {
            case VerbsConstants.RDMA_CM_EVENT_REJECTED -> new ConnectionRejectedException(peer + " rejected the connection ("
                    + e.typeName() + ", status " + e.status() + ")", ByteBuffer.wrap(e.privateData()));
            case VerbsConstants.RDMA_CM_EVENT_UNREACHABLE -> new VerbsException("nothing listens at " + peer + ", or it is not "
                    + "reachable over RDMA (" + e.typeName() + ", status " + e.status() + ")");
            case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR -> new VerbsException("the address " + peer + " does not resolve to an "
                    + "RDMA device (" + e.typeName() + ", status " + e.status() + "): is it the IP address of an RDMA interface?");
            case VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR -> new VerbsException("no route to " + peer + " over RDMA ("
                    + e.typeName() + ", status " + e.status() + ")");
            default -> new VerbsException("connection to " + peer + " failed: expected " + name(expected) + ", got "
                    + e.typeName() + " (status " + e.status() + ")");
        };
    }

    private static String name(int type) {
        return new CmEvent(type, 0, 0, 0, new byte[0]).typeName();
    }
}
