package io.reactorrdma.perf.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.EchoLoops;
import io.reactorrdma.perf.measure.MeasuredLoop;
import io.reactorrdma.perf.measure.Latencies;
import io.reactorrdma.perf.measure.PayloadCheck;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import org.HdrHistogram.Histogram;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

import java.util.concurrent.CompletableFuture;

/**
 * One connection's rsocket-stream: a single request-stream whose {@code --size} payloads are
 * counted (and checked, like {@link PayloadCheck} does) as they arrive, with Reactive Streams demand as
 * the only flow control: {@link #WINDOW} payloads asked for at the start, then {@code WINDOW / 2}
 * more each time that many arrived (RSocket turns each into a REQUEST_N frame). Every payload is
 * released after it was looked at. At the stop the loop cancels the stream.
 */
public final class StreamLoop extends BaseSubscriber<Payload> implements MeasuredLoop {

    /** Payloads asked for ahead: the same for every transport. */
    public static final int WINDOW = 32;

    private final int id;
    private final RSocket socket;
    private final PayloadCheck check;
    private final EchoLoops loops;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final CompletableFuture<Void> firstPayload = new CompletableFuture<>();
    private int sinceRequest;
    private long measured;

    /** A stream on {@code socket} whose payloads must equal {@code expected} (the caller keeps it). */
    StreamLoop(int id, RSocket socket, ByteBuf expected, EchoLoops loops) {
        this.id = id;
        this.socket = socket;
        this.check = new PayloadCheck(expected);
        this.loops = loops;
    }

    @Override
    public void start() {
        RSocketLoopSupport.startOnOwnThread("rsocket-stream-" + id,
                () -> socket.requestStream(ByteBufPayload.create(Unpooled.EMPTY_BUFFER)).subscribe(this));
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
        s.request(WINDOW);
    }

    @Override
    protected void hookOnNext(Payload p) {
        try {
            if (done.isDone()) {
                return;
            }
            if (!check.matches(p.data())) {
                fail(new PerfException("connection " + id + ": a stream payload (" + p.data().readableBytes() + " bytes) differs from the "
                        + check.expectedBytes() + "-byte payload the server sends; the transport corrupted or mixed up payloads"));
                cancel();
                return;
            }
            MeasuredLoop.firstAnswerSeen(firstPayload);
            EchoLoops.Phase phase = loops.phase();
            if (phase == EchoLoops.Phase.MEASURE) {
                measured++;
            } else if (phase == EchoLoops.Phase.STOP) {
                done.complete(null);
                cancel();
                return;
            }
        } finally {
            p.release();
        }
        if (++sinceRequest == WINDOW / 2) {
            sinceRequest = 0;
            request(WINDOW / 2);
        }
    }

    @Override
    protected void hookOnError(Throwable t) {
        fail(t);
    }

    @Override
    protected void hookOnComplete() {
        if (loops.phase() != EchoLoops.Phase.STOP) {
            fail(new PerfException("connection " + id + ": the server ended the stream during the run"));
        } else {
            done.complete(null);
        }
    }

    private void fail(Throwable error) {
        RSocketLoopSupport.fail(done, loops, id, error);
    }

    @Override
    public CompletableFuture<Void> firstEcho() {
        return firstPayload;
    }

    @Override
    public CompletableFuture<Void> done() {
        return done;
    }

    /** A stream records no round trips: empty. */
    @Override
    public Histogram histogram() {
        return Latencies.newHistogram();
    }

    @Override
    public long measured() {
        return measured;
    }
}
