package io.reactorrdma.perf.echo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.EchoLoops;
import io.reactorrdma.perf.measure.EchoTemplates;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The closed loop without a transport: the test plays the echo server. */
class EchoLoopTest {

    private final EchoLoops loops = new EchoLoops();
    private final ByteBuf template = EchoTemplates.filled(Unpooled.directBuffer(256), 256, 0);
    private final List<ByteBuf> sent = new ArrayList<>();
    private final EchoLoop loop = loops.add(new EchoLoop(loops.nextId(), template, loops));

    EchoLoopTest() {
        loop.output(sent::add);
    }

    @Test
    void recordsOnlyTheMeasuredPhaseAndEndsAtTheNextEchoAfterStop() {
        loops.startAll();
        echoLast(); // warm-up: not recorded
        loops.measure();
        echoLast();
        echoLast();
        loops.stop();
        echoLast(); // ends the loop; nothing more is sent
        assertThat(sent).hasSize(4);
        assertThat(loop.done()).isCompleted();
        loops.awaitStopped(1000);
        assertThat(loops.measured()).isEqualTo(2);
        assertThat(loops.latencies().getTotalCount()).isEqualTo(2);
        sent.forEach(ByteBuf::release);
        assertThat(template.refCnt()).isEqualTo(1);
        template.release();
    }

    @Test
    void aCorruptedEchoFailsTheRun() {
        loops.startAll();
        ByteBuf echo = Unpooled.copiedBuffer(sent.get(0)); // a copy: the message shares the template's memory
        echo.setByte(255, echo.getByte(255) + 1);
        loop.onEcho(echo);
        echo.release();
        sent.forEach(ByteBuf::release);
        assertThat(sent).hasSize(1);
        assertThatThrownBy(() -> loops.runFor(1_000_000_000L)).isInstanceOf(PerfException.class)
                .hasMessageContaining("connection 0").hasMessageContaining("differs");
        template.release();
    }

    @Test
    void aServerThatClosesEarlyFailsTheRunButNotAfterStop() {
        loops.startAll();
        loops.stop();
        loop.ended();
        loops.awaitStopped(1000);
        sent.forEach(ByteBuf::release);

        EchoLoops other = new EchoLoops();
        EchoLoop early = other.add(new EchoLoop(other.nextId(), template, other));
        early.output(ByteBuf::release);
        other.startAll();
        early.ended();
        assertThatThrownBy(() -> other.awaitStopped(1000)).hasMessageContaining("closed by the server");
        template.release();
    }

    private void echoLast() {
        ByteBuf m = sent.get(sent.size() - 1);
        loop.onEcho(m);
    }
}
