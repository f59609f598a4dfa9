package io.reactorrdma.incast;

import io.reactorrdma.backpressure.ByteWindow;
import org.HdrHistogram.Histogram;

import java.util.Arrays;

/**
 * The sender's engine of every flow (one engine per RC QP, as in {@code io.reactorrdma.engine.Engine}): the
 * application posts messages; the engine cuts each into fragments of at most {@link SenderConfig#fragmentBytes()} and
 * posts them, in order (FIFO per engine), as work requests to the NIC while fewer than
 * {@link SenderConfig#chainDepth()} are posted and not completed and — with the window on — the project's own
 * {@link ByteWindow#tryAcquire} grants the fragment's bytes (all or nothing; a fragment larger than the whole window
 * goes alone when the window is empty). A fragment completes at the ACK of its last packet at the sender: its bytes go
 * back with {@link ByteWindow#release}, its chain slot is free, and the next fragments go at once. A message completes
 * with its last fragment; its latency runs from the application's post, so time spent waiting here counts.
 *
 * <p>Taken from the engine: the order (one socket per engine, so fragments leave FIFO), the fragment cut, the chain
 * bound and the window calls. Every fragment is signaled here; the engine signals only the last request of each post
 * call, so the fragments one turn posts come back together and their window bytes return up to one batch later than
 * here (with the window on, a batch is at most window / fragment fragments). Not modelled: the engine's processing time (a turn and a
 * completion take no simulated time), the rendezvous request and answer that precede a message above the eager size
 * (one round trip of two small SENDs, which carry no payload and take no window), the 16-byte header an eager SEND adds
 * to its window charge, and receive credits (see docs/INCAST.md: in the trainers' workload they cannot bind).
 *
 * <p>State lives in per-flow arrays and preallocated rings; the steady state allocates nothing.
 */
final class SenderEngines {

    /** Called after each fragment is posted (the moment an engine's outstanding bytes grow): a test's probe. */
    interface Probe {
        void afterPost(int flow);
    }

    private final SenderConfig config;
    private final long[] hostBytes;
    private int count;
    private int[] host = new int[16];
    private ByteWindow[] windows = new ByteWindow[16];
    private int[] postedWrs = new int[16];
    private long[] postedBytes = new long[16];
    private int[] messages = new int[16];
    private IntFifo[] queued = new IntFifo[16];
    private LongFifo[] queuedPostPs = new LongFifo[16];
    private IntFifo[] fragments = new IntFifo[16];
    private LongFifo[] postedPostPs = new LongFifo[16];
    private final Histogram engineWaitPs = new Histogram(Flows.DEFAULT_HISTOGRAM_DIGITS);
    private long peakEngineBytes;
    private long peakHostBytes;
    private int peakMessages;
    private long windowStalls;
    private long chainStalls;
    private Probe probe;

    SenderEngines(SenderConfig config, int hosts) {
        this.config = config;
        this.hostBytes = new long[hosts];
    }

    /** Adds the engine of the next flow (ids in the order of {@link Flows#add}); {@code src} is its host. */
    void add(int src) {
        if (count == host.length) {
            int capacity = count * 2;
            host = Arrays.copyOf(host, capacity);
            windows = Arrays.copyOf(windows, capacity);
            postedWrs = Arrays.copyOf(postedWrs, capacity);
            postedBytes = Arrays.copyOf(postedBytes, capacity);
            messages = Arrays.copyOf(messages, capacity);
            queued = Arrays.copyOf(queued, capacity);
            queuedPostPs = Arrays.copyOf(queuedPostPs, capacity);
            fragments = Arrays.copyOf(fragments, capacity);
            postedPostPs = Arrays.copyOf(postedPostPs, capacity);
        }
        int id = count++;
        host[id] = src;
        windows[id] = config.windowEnabled() ? new ByteWindow(config.windowBytes()) : null;
        queued[id] = new IntFifo();
        queuedPostPs[id] = new LongFifo();
        fragments[id] = new IntFifo();
        postedPostPs[id] = new LongFifo();
    }

    /** The application posts a message of {@code bytes} on {@code flow}'s engine at {@code nowPs}. */
    void post(Simulation sim, int flow, int bytes, long nowPs) {
        queued[flow].add(bytes);
        queuedPostPs[flow].add(nowPs);
        peakMessages = Math.max(peakMessages, ++messages[flow]);
        pump(sim, flow, nowPs);
    }

    /** The ACK of the last packet of {@code flow}'s oldest posted fragment reached the sender. */
    void onCompleted(Simulation sim, int flow, long nowPs) {
        if (fragments[flow].isEmpty()) {
            throw new IllegalStateException("flow " + flow + ": a work request completed but its engine posted none "
                    + "that is outstanding; the model lost track of a fragment");
        }
        int head = fragments[flow].poll();
        boolean endsMessage = head < 0;
        int bytes = endsMessage ? -head : head;
        postedWrs[flow]--;
        postedBytes[flow] -= bytes;
        hostBytes[host[flow]] -= bytes;
        if (windows[flow] != null) {
            windows[flow].release(bytes);
        }
        long postedPs = endsMessage ? postedPostPs[flow].poll() : -1;
        pump(sim, flow, nowPs);
        if (endsMessage) {
            messages[flow]--;
            sim.messageCompleted(flow, postedPs);
        }
    }

    /** Posts the next fragments of {@code flow} while the chain has a free slot and the window grants them. */
    private void pump(Simulation sim, int flow, long nowPs) {
        IntFifo waiting = queued[flow];
        ByteWindow window = windows[flow];
        while (!waiting.isEmpty()) {
            if (postedWrs[flow] == config.chainDepth()) {
                chainStalls++;
                return;
            }
            int left = waiting.peek();
            int fragment = Math.min(config.fragmentBytes(), left);
            if (window != null && !window.tryAcquire(fragment)) {
                windowStalls++;
                return;
            }
            boolean endsMessage = fragment == left;
            if (endsMessage) {
                waiting.poll();
                long postedPs = queuedPostPs[flow].poll();
                postedPostPs[flow].add(postedPs);
                engineWaitPs.recordValue(nowPs - postedPs);
            } else {
                waiting.setHead(left - fragment);
            }
            fragments[flow].add(endsMessage ? -fragment : fragment);
            postedWrs[flow]++;
            peakEngineBytes = Math.max(peakEngineBytes, postedBytes[flow] += fragment);
            peakHostBytes = Math.max(peakHostBytes, hostBytes[host[flow]] += fragment);
            sim.postWr(flow, fragment);
            if (probe != null) {
                probe.afterPost(flow);
            }
        }
    }

    void probe(Probe p) {
        this.probe = p;
    }

    SenderConfig config() {
        return config;
    }

    /** Bytes {@code flow}'s engine has posted and not yet seen completed. */
    long outstandingBytes(int flow) {
        return postedBytes[flow];
    }

    /** Work requests {@code flow}'s engine has posted and not yet seen completed. */
    int outstandingWrs(int flow) {
        return postedWrs[flow];
    }

    /** {@code flow}'s send window, or null with the window off. */
    ByteWindow window(int flow) {
        return windows[flow];
    }

    /** Per message: from the application's post to the post of its last fragment, ps. */
    Histogram engineWaitPs() {
        return engineWaitPs;
    }

    /** The most bytes one engine had posted and not completed. */
    long peakEngineBytes() {
        return peakEngineBytes;
    }

    /** The most bytes all engines of one host had posted and not completed: the deepest NIC backlog. */
    long peakHostBytes() {
        return peakHostBytes;
    }

    /** The most messages one engine held at once (posted by the application and not completed). */
    int peakMessages() {
        return peakMessages;
    }

    /** Times an engine had a fragment ready and the window refused it. */
    long windowStalls() {
        return windowStalls;
    }

    /** Times an engine had a fragment ready and its chain was full. */
    long chainStalls() {
        return chainStalls;
    }

    /** True when no engine holds a message, a posted fragment or window bytes. */
    boolean drained() {
        for (int f = 0; f < count; f++) {
            if (!queued[f].isEmpty() || !fragments[f].isEmpty() || postedWrs[f] != 0 || postedBytes[f] != 0
                    || messages[f] != 0 || (windows[f] != null && !windows[f].isEmpty())) {
                return false;
            }
        }
        return true;
    }
}
