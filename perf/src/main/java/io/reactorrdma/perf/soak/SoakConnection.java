package io.reactorrdma.perf.soak;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.RdmaConnection;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * One client connection of the soak, from connect to settlement: sends random messages in
 * {@code send()} batches (some cancelled), single {@code sendNow}s and direct writes into the
 * server's slot, and matches the server's receipts to what it sent. When the connection ends it
 * settles every message without a receipt: cancelled by us, failed with a cause the sender was
 * told (a failed send, the connection's failure, the peer's close, the receiver's cancel), or a
 * violation — a message the sender believes sent that silently vanished.
 */
final class SoakConnection {

    /** How long one send may wait on an open connection before it counts as stalled. */
    static final Duration STALL = Duration.ofSeconds(20);
    /** How long the end of a run waits for the receipts of what was sent. */
    static final Duration DRAIN = Duration.ofSeconds(30);
    /** Messages of the send that must still complete after the receiver cancelled its receive (above any window). */
    static final int AFTER_CANCEL_MESSAGES = 96;

    private enum State { PENDING, OK, CANCELLED, FAILED, STALLED }

    /** One send()'s messages (or one sendNow / direct write): how it ended decides the fate of those without a receipt. */
    private static final class Batch {
        final AtomicReference<State> state = new AtomicReference<>(State.PENDING);
        volatile String cause;

        void fail(Throwable e) {
            cause = SoakLedger.cause(e);
            state.compareAndSet(State.PENDING, State.FAILED);
        }
    }

    private static final class Entry {
        final long seq;
        final int size;
        final Batch batch;
        final long offeredNanos = System.nanoTime();

        Entry(long seq, int size, Batch batch) {
            this.seq = seq;
            this.size = size;
            this.batch = batch;
        }

        boolean matches(long receiptSeq, int receiptLength) {
            if (SoakPayloads.isTinyKey(receiptSeq)) {
                return size < SoakPayloads.HEADER && seq >= 0 && size == receiptLength && SoakPayloads.tinyKey(seq, size) == receiptSeq;
            }
            return seq == receiptSeq && (seq < 0 || (size >= SoakPayloads.HEADER && size == receiptLength));
        }

        boolean isDirectWriteCheck() {
            return seq < 0;
        }

        @Override
        public String toString() {
            return (seq < 0 ? "direct write " + ~seq : "message " + seq) + " (" + size + " B, send " + batch.state.get() + ")";
        }
    }

    private final RdmaConnection c;
    private final SoakLedger ledger;
    private final SplittableRandom random;
    private final String name;
    private final long pauseMillis;
    /** Sent, receipt not yet seen, in order; guarded by itself. */
    private final ArrayDeque<Entry> outstanding = new ArrayDeque<>();
    /** Passed over by a later receipt: judged at settlement; guarded by {@link #outstanding}. */
    private final List<Entry> skipped = new ArrayList<>();
    private final CompletableFuture<long[]> slot = new CompletableFuture<>();
    private volatile boolean receiverCancelled;
    private volatile boolean directWriteOutstanding;
    private long nextSeq;
    private long nextWrite;

    SoakConnection(RdmaConnection c, SoakLedger ledger, SplittableRandom random, String name, long pauseMillis) {
        this.c = c;
        this.ledger = ledger;
        this.random = random;
        this.name = name;
        this.pauseMillis = pauseMillis;
        ledger.connections.increment();
        c.receive().subscribe(this::onReceipt, e -> { }, () -> { });
    }

    /** Drives the connection until {@code stopping} or its end, drains, closes and settles. */
    void run(BooleanSupplier stopping) throws InterruptedException {
        try {
            slot.get(STALL.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            if (!c.isDisposed()) {
                ledger.violation(name + ": no announcement from the server within " + STALL.toSeconds() + " s on an open connection");
            }
        }
        while (!stopping.getAsBoolean() && !c.isDisposed()) {
            if (receiverCancelled) {
                // the receiver drops what follows: the connection must still flow (nothing may wait on its consumption)
                if (batch(AFTER_CANCEL_MESSAGES, false) == State.STALLED) {
                    ledger.violation(name + ": after the receiver cancelled its receive, a send of " + AFTER_CANCEL_MESSAGES
                            + " messages stalled " + STALL.toSeconds()
                            + " s (messages dropped after cancel are not given back to the sender)");
                }
                break;
            }
            double a = random.nextDouble();
            if (a < 0.10 && slot.isDone() && !directWriteOutstanding) {
                directWrite();
            } else if (a < 0.25 && c.queuedMessages() < 8) {
                single();
            } else {
                int n = 1 + random.nextInt(16);
                boolean cancel = random.nextDouble() < 0.08;
                if (batch(n, cancel) == State.STALLED) {
                    ledger.violation(name + ": a send of " + n + " messages did not complete within " + STALL.toSeconds()
                            + " s on an open connection (queued " + c.queuedMessages() + ")");
                    break;
                }
            }
            if (pauseMillis > 0) {
                Thread.sleep(pauseMillis);
            }
        }
        drainAndClose();
        settle();
    }

    private long size() {
        double r = random.nextDouble();
        if (r < 0.05) {
            return random.nextInt(SoakPayloads.HEADER); // 0..15 B: no header
        }
        if (r < 0.70) {
            return 16 + random.nextInt(1024 - 16); // small, eager
        }
        if (r < 0.88) {
            return 1024 + random.nextInt(63 * 1024); // up to 64 KiB: eager, then rendezvous above 8 KiB
        }
        if (r < 0.97) {
            return 64 * 1024 + random.nextInt(960 * 1024); // up to 1 MiB: rendezvous
        }
        return 1024 * 1024 + random.nextInt(7 * 1024 * 1024 + 1);          // up to 8 MiB: rendezvous, dedicated regions
    }

    private ByteBuf next(Batch b) {
        int size = (int) size();
        long seq = nextSeq++;
        ByteBuf m = SoakPayloads.message(c.alloc(), seq, size);
        register(new Entry(seq, size, b));
        return m;
    }

    private void register(Entry e) {
        synchronized (outstanding) {
            outstanding.addLast(e);
        }
        if (e.seq >= 0) {
            ledger.offered.increment();
            ledger.offeredBytes.add(e.size);
        }
    }

    /** One {@code send()} of {@code n} messages; cancelled after a random moment when {@code cancel}. */
    private State batch(int n, boolean cancel) throws InterruptedException {
        Batch b = new Batch();
        Flux<ByteBuf> messages = Flux.generate(() -> 0, (i, sink) -> {
            if (i == n) {
                sink.complete();
            } else {
                sink.next(next(b));
            }
            return i + 1;
        });
        if (cancel) {
            Disposable d = c.outbound().send(messages).then().subscribe(v -> { }, b::fail,
                    () -> b.state.compareAndSet(State.PENDING, State.OK));
            Thread.sleep(random.nextInt(4));
            d.dispose();
            if (b.state.compareAndSet(State.PENDING, State.CANCELLED)) {
                ledger.sendCancels.increment();
            }
            return b.state.get();
        }
        CompletableFuture<Void> done = c.outbound().send(messages).then().toFuture();
        try {
            done.get(STALL.toMillis(), TimeUnit.MILLISECONDS);
            b.state.compareAndSet(State.PENDING, State.OK);
        } catch (ExecutionException e) {
            b.fail(e.getCause());
            if (e.getCause() instanceof IllegalStateException && !c.isDisposed()) {
                // this driver starts a send only after the previous one's then() signalled or was cancelled
                ledger.violation(name + ": a send started after the previous one ended was refused: " + SoakLedger.cause(e.getCause()));
            }
        } catch (TimeoutException e) {
            done.cancel(true);
            if (c.isDisposed()) {
                b.fail(c.failure() != null ? c.failure() : new java.nio.channels.ClosedChannelException());
            } else {
                b.state.set(State.STALLED);
            }
        }
        return b.state.get();
    }

    private void single() {
        Batch b = new Batch();
        if (c.sendNow(next(b))) {
            b.state.set(State.OK);
        } else {
            b.fail(new java.nio.channels.ClosedChannelException());
        }
    }

    private void directWrite() {
        long[] s = slot.getNow(null);
        int length = 1 + (random.nextDouble() < 0.7 ? random.nextInt(4096) : random.nextInt((int) s[0]));
        long w = nextWrite++;
        ByteBuf payload = SoakPayloads.directWrite(c.alloc(), w, length);
        ByteBuf check = SoakPayloads.directWriteCheck(c.alloc(), w, payload);
        Batch b = new Batch();
        directWriteOutstanding = true;
        register(new Entry(~w, length, b));
        ledger.directWrites.increment();
        if (c.writeNow(payload, s[1], (int) s[2]) & c.sendNow(check)) {
            b.state.set(State.OK);
        } else {
            b.fail(new java.nio.channels.ClosedChannelException());
        }
    }

    /** I/O thread: the announcement first, then one receipt per message the server checked. */
    private void onReceipt(ByteBuf m) {
        try {
            if (!slot.isDone()) {
                if (m.readableBytes() != SoakPayloads.ANNOUNCE || m.getInt(m.readerIndex()) != SoakPayloads.ANNOUNCE_MAGIC) {
                    ledger.violation(name + ": the server's first message is not its announcement (" + m.readableBytes() + " B)");
                    slot.completeExceptionally(new IllegalStateException("no announcement"));
                    return;
                }
                int at = m.readerIndex();
                slot.complete(new long[]{m.getInt(at + 4), m.getLong(at + 8), m.getInt(at + 16)});
                return;
            }
            if (m.readableBytes() != SoakPayloads.RECEIPT) {
                ledger.violation(name + ": a receipt of " + m.readableBytes() + " B (expected " + SoakPayloads.RECEIPT + ")");
                return;
            }
            int at = m.readerIndex();
            long seq = m.getLong(at);
            int length = m.getInt(at + 8);
            int status = m.getInt(at + 12);
            if (status == SoakPayloads.STATUS_RECEIVE_CANCELLED) {
                receiverCancelled = true;
                ledger.receiveCancels.increment();
                return;
            }
            if (status != SoakPayloads.STATUS_OK) {
                ledger.violation(name + ": the server received " + (SoakPayloads.isTinyKey(seq) ? "a short message" : seq < 0
                        ? "direct write " + ~seq : "message " + seq) + " of " + length + " B damaged: " + SoakPayloads.statusName(status));
            }
            match(seq, length, status);
        } finally {
            m.release();
        }
    }

    private void match(long seq, int length, int status) {
        Entry found = null;
        synchronized (outstanding) {
            for (Entry e : outstanding) {
                if (e.matches(seq, length)) {
                    found = e;
                    break;
                }
            }
            if (found != null) {
                Entry e;
                while ((e = outstanding.pollFirst()) != found) {
                    skipped.add(e);
                }
            }
        }
        if (found == null) {
            ledger.violation(name + ": a receipt for " + (SoakPayloads.isTinyKey(seq) ? "a short message" : seq < 0 ? "direct write " + ~seq
                    : "message " + seq) + " of " + length + " B matches nothing sent and not yet receipted (duplicate or invented)");
            return;
        }
        ledger.latency(System.nanoTime() - found.offeredNanos);
        if (found.isDirectWriteCheck()) {
            if (status == SoakPayloads.STATUS_OK) {
                ledger.directWritesVerified.increment();
            }
            directWriteOutstanding = false;
        } else if (status == SoakPayloads.STATUS_OK) {
            ledger.delivered.increment();
            ledger.deliveredBytes.add(found.size);
        } else {
            ledger.damaged.increment();
        }
    }

    private boolean awaitingReceipts() {
        synchronized (outstanding) {
            for (Entry e : outstanding) {
                State s = e.batch.state.get();
                if (s == State.OK || s == State.PENDING) {
                    return true;
                }
            }
            return false;
        }
    }

    private void drainAndClose() throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN.toNanos();
        while (!receiverCancelled && !c.isDisposed() && awaitingReceipts() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        closedByPeer = c.isDisposed();
        c.dispose();
        try {
            c.onDispose().block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            ledger.violation(name + ": the connection did not report its close within 10 s of dispose()");
        }
    }

    private boolean closedByPeer;

    /** Every message without a receipt gets its fate; messages the sender was never told about are violations. */
    private void settle() {
        List<Entry> lost = new ArrayList<>();
        synchronized (outstanding) {
            for (Entry e : skipped) {
                settle(e, true, lost);
            }
            for (Iterator<Entry> it = outstanding.iterator(); it.hasNext(); ) {
                settle(it.next(), false, lost);
            }
            skipped.clear();
            outstanding.clear();
        }
        if (!lost.isEmpty()) {
            ledger.lost.add(lost.stream().filter(e -> !e.isDirectWriteCheck()).count());
            ledger.violation(name + ": " + lost.size() + " message(s) lost without a report to the sender"
                    + (closedByPeer ? " (closed by peer" + (c.failure() == null ? "" : ": " + SoakLedger.cause(c.failure())) + ")" : "")
                    + ", first " + lost.subList(0, Math.min(5, lost.size())));
        }
    }

    private void settle(Entry e, boolean passedOver, List<Entry> lost) {
        State s = e.batch.state.get();
        boolean reported = s == State.CANCELLED || s == State.FAILED || (!passedOver && (receiverCancelled || closedByPeer));
        if (e.isDirectWriteCheck()) {
            if (reported) {
                ledger.directWritesUnconfirmed.increment();
            } else {
                lost.add(e);
            }
        } else if (s == State.CANCELLED) {
            ledger.cancelledUndelivered.increment();
        } else if (s == State.FAILED) {
            ledger.failed("send failed: " + e.batch.cause);
        } else if (passedOver) {
            lost.add(e); // later messages arrived: this one vanished from a send that succeeded
        } else if (receiverCancelled) {
            ledger.failed("dropped after the receiver cancelled its receive");
        } else if (closedByPeer && c.failure() != null) {
            ledger.failed("connection failed: " + SoakLedger.cause(c.failure()));
        } else if (closedByPeer) {
            ledger.failed("connection closed by the peer");
        } else {
            lost.add(e);
        }
    }
}
