package io.reactorrdma.perf.rsocket;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.EchoLoops;
import io.reactorrdma.perf.measure.MeasuredLoop;
import io.reactorrdma.perf.measure.Latencies;
import io.reactorrdma.perf.measure.PayloadCheck;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import org.HdrHistogram.Histogram;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One connection's closed loop of rsocket-rr: a request-response with a {@code --size} payload,
 * its answer checked and the round trip recorded, then the next request — sent from the answer's
 * callback, on the thread that delivers it (the transport's I/O thread), as echo's {@code EchoLoop} does.
 *
 * <p>Every request's data is a retained duplicate of one template made and filled once (RSocket
 * releases it once the frame is written); every answer (a zero-copy payload) is released here
 * after it was checked. Over RSocket's Local transport the answer can arrive inside the call that
 * sent the request; a work counter then turns the recursion into a loop on the sending thread.
 */
public final class RequestResponseLoop implements MeasuredLoop {

    private final int id;
    private final RSocket socket;
    private final ByteBuf template;
    private final PayloadCheck check;
    private final EchoLoops loops;
    private final Histogram histogram = Latencies.newHistogram();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final CompletableFuture<Void> firstAnswer = new CompletableFuture<>();
    private final AtomicInteger pendingSends = new AtomicInteger();
    private long sentAt;
    private long measured;

    /** A loop on {@code socket} sending duplicates of {@code template} (the caller keeps the template and releases it after the run). */
    RequestResponseLoop(int id, RSocket socket, ByteBuf template, EchoLoops loops) {
        this.id = id;
        this.socket = socket;
        this.template = template;
        this.check = new PayloadCheck(template);
        this.loops = loops;
    }

    @Override
    public void start() {
        RSocketLoopSupport.startOnOwnThread("rsocket-rr-" + id, this::sendNext);
    }

    private void sendNext() {
        if (pendingSends.getAndIncrement() != 0) {
            return; // the thread already sending will send this one too
        }
        do {
            Payload request = ByteBufPayload.create(template.retainedDuplicate());
            sentAt = System.nanoTime();
            try {
                socket.requestResponse(request).subscribe(this::onAnswer, this::fail);
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
        } while (pendingSends.decrementAndGet() != 0);
    }

    private void onAnswer(Payload answer) {
        long now = System.nanoTime();
        try {
            if (done.isDone()) {
                return;
            }
            if (!check.matches(answer.data())) {
                fail(new PerfException("connection " + id + ": the answer (" + answer.data().readableBytes() + " bytes) differs from the "
                        + check.expectedBytes() + "-byte request; the transport corrupted or mixed up payloads"));
                return;
            }
            MeasuredLoop.firstAnswerSeen(firstAnswer);
            EchoLoops.Phase phase = loops.phase();
            if (phase == EchoLoops.Phase.MEASURE) {
                Latencies.record(histogram, now - sentAt);
                measured++;
            } else if (phase == EchoLoops.Phase.STOP) {
                done.complete(null);
                return;
            }
        } finally {
            answer.release();
        }
        sendNext();
    }

    private void fail(Throwable error) {
        RSocketLoopSupport.fail(done, loops, id, error);
    }

    @Override
    public CompletableFuture<Void> firstEcho() {
        return firstAnswer;
    }

    @Override
    public CompletableFuture<Void> done() {
        return done;
    }

    @Override
    public Histogram histogram() {
        return histogram;
    }

    @Override
    public long measured() {
        return measured;
    }
}
