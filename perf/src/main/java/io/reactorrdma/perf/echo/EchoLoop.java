package io.reactorrdma.perf.echo;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.EchoLoops;
import io.reactorrdma.perf.measure.Latencies;
import io.reactorrdma.perf.measure.MeasuredLoop;
import io.reactorrdma.perf.measure.PayloadCheck;
import org.HdrHistogram.Histogram;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One connection's closed loop: send a message, wait for its echo, record the round trip, send
 * the next — driven by the echo itself, on the thread that delivers it (the transport's I/O
 * thread), so no hand-off to another thread is in the measured path.
 *
 * <p>Every message is a retained duplicate of one template the transport's allocator made and
 * filled once: the payload is produced once, the transports move it. Each echo is checked against
 * the template (its length and, for messages over 64 bytes, its first and last 8 bytes; the first
 * echo in full). The transport releases the echo after {@link #onEcho}, and owns the template.
 *
 * <p>Threads: {@link #start} on the caller's thread, everything else on the transport's thread;
 * the results are read after {@link #done()} completed.
 */
public final class EchoLoop implements MeasuredLoop {

    private static final Duration SERIALIZED_EMIT_WAIT = Duration.ofSeconds(5);

    private final int id;
    private final ByteBuf template;
    private final PayloadCheck check;
    private final EchoLoops loops;
    private final Histogram histogram = Latencies.newHistogram();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final CompletableFuture<Void> firstEcho = new CompletableFuture<>();
    private Consumer<ByteBuf> out;
    private long sentAt;
    private long measured;

    EchoLoop(int id, ByteBuf template, EchoLoops loops) {
        this.id = id;
        this.template = template;
        this.check = new PayloadCheck(template);
        this.loops = loops;
    }

    /** Where the messages go; ownership of each passes to it. */
    void output(Consumer<ByteBuf> out) {
        this.out = out;
    }

    /**
     * Messages go into {@code sink}, which a transport's {@code outbound().send(...)} drains. The
     * first message is emitted by the starting thread and its echo may come back while that thread
     * is still inside the emission, so a concurrent emission is retried briefly instead of failing.
     * The retrying handler is made only then: it reads the clock and is an object, per message otherwise.
     */
    void outputTo(Sinks.Many<ByteBuf> sink) {
        output(message -> {
            Sinks.EmitResult result = sink.tryEmitNext(message);
            if (result == Sinks.EmitResult.OK) {
                return;
            }
            try {
                if (result != Sinks.EmitResult.FAIL_NON_SERIALIZED) {
                    throw new Sinks.EmissionException(result);
                }
                sink.emitNext(message, Sinks.EmitFailureHandler.busyLooping(SERIALIZED_EMIT_WAIT));
            } catch (Sinks.EmissionException e) {
                message.release();
                fail(new PerfException("connection " + id + ": the outbound sink refused a message (" + e.getReason() + ")", e));
            }
        });
    }

    /** Sends the first message. */
    @Override
    public void start() {
        send();
    }

    private void send() {
        ByteBuf next = template.retainedDuplicate();
        sentAt = System.nanoTime();
        out.accept(next);
    }

    /** An echo arrived (the caller keeps ownership): records it and sends the next message, or ends the loop. */
    void onEcho(ByteBuf echo) {
        long now = System.nanoTime();
        if (done.isDone()) {
            return;
        }
        if (!check.matches(echo)) {
            fail(new PerfException("connection " + id + ": the echo (" + echo.readableBytes() + " bytes) differs from the "
                    + template.readableBytes() + "-byte message sent; the transport corrupted or mixed up messages"));
            return;
        }
        MeasuredLoop.firstAnswerSeen(firstEcho);
        EchoLoops.Phase phase = loops.phase();
        if (phase == EchoLoops.Phase.MEASURE) {
            Latencies.record(histogram, now - sentAt);
            measured++;
        } else if (phase == EchoLoops.Phase.STOP) {
            done.complete(null);
            return;
        }
        send();
    }

    /** The connection failed. */
    void fail(Throwable error) {
        if (done.completeExceptionally(error instanceof PerfException ? error
                : new PerfException("connection " + id + " failed during the run: " + error, error))) {
            loops.failed(done);
        }
    }

    /** The inbound ended normally: the server closed the connection. */
    void ended() {
        if (loops.phase() == EchoLoops.Phase.STOP) {
            done.complete(null); // the loop was stopping anyway; its last echo is lost, nothing was measured from it
        } else {
            fail(new PerfException("connection " + id + " was closed by the server during the run (see the server's messages)"));
        }
    }

    @Override
    public CompletableFuture<Void> done() {
        return done;
    }

    /** Completes at the first good echo. */
    @Override
    public CompletableFuture<Void> firstEcho() {
        return firstEcho;
    }

    @Override
    public Histogram histogram() {
        return histogram;
    }

    /** Echoes received in the measured phase. */
    @Override
    public long measured() {
        return measured;
    }
}
