package io.reactorrdma.verbs.disni.cm;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Pairs a listener's rdma_cm connect requests with the side-channel handshakes waiting for them,
 * by the client's IP address — the only thing both carry. Handshakes from different IP addresses
 * wait concurrently; those from one IP address take turns ({@link #begin}), since their requests
 * could not be told apart. A request nobody from its IP waits for is refused.
 *
 * @param <T> the request (an rdma_cm id)
 */
public final class RequestPairing<T> {

    private static final class Turn {
        final ReentrantLock lock = new ReentrantLock();
        int users;
    }

    private final Map<InetAddress, Turn> turns = new HashMap<>();
    private final ConcurrentHashMap<InetAddress, BlockingQueue<T>> waiting = new ConcurrentHashMap<>();

    /** Waits for the turn of {@code ip}, then starts waiting for its request; pair with {@link #end}. */
    public void begin(InetAddress ip) throws InterruptedException {
        Turn t;
        synchronized (this) {
            t = turns.computeIfAbsent(ip, k -> new Turn());
            t.users++;
        }
        try {
            t.lock.lockInterruptibly();
        } catch (InterruptedException e) {
            release(ip, t);
            throw e;
        }
        waiting.put(ip, new LinkedBlockingQueue<>());
    }

    /** CM thread: hands {@code request} to the handshake waiting for {@code from}; false when there is none (refuse it). */
    public boolean offer(InetAddress from, T request) {
        BlockingQueue<T> q = from == null ? null : waiting.get(from);
        return q != null && q.offer(request);
    }

    /** The request from {@code ip}, or null once {@code deadline} ({@link System#nanoTime()}) passed. */
    public T await(InetAddress ip, long deadline) throws InterruptedException {
        BlockingQueue<T> q = waiting.get(ip);
        return q == null ? null : q.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Ends the turn of {@code ip}; returns the requests that came but were not taken (to be refused). */
    public List<T> end(InetAddress ip) {
        BlockingQueue<T> q = waiting.remove(ip);
        List<T> left = new ArrayList<>();
        if (q != null) {
            q.drainTo(left);
        }
        Turn t;
        synchronized (this) {
            t = turns.get(ip);
        }
        if (t != null && t.lock.isHeldByCurrentThread()) {
            t.lock.unlock();
            release(ip, t);
        }
        return left;
    }

    /** Requests queued for every waiting handshake (when the listener closes). */
    public List<T> drainAll() {
        List<T> left = new ArrayList<>();
        for (BlockingQueue<T> q : waiting.values()) {
            q.drainTo(left);
        }
        return left;
    }

    private synchronized void release(InetAddress ip, Turn t) {
        if (--t.users == 0) {
            turns.remove(ip);
        }
    }
}
