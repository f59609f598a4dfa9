package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.verbs.soft.fault.ReadCompletionFault;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a thread domain arms for before it blocks, against RNIC timing: send completions that come
 * after the I/O thread blocked (the soft provider's {@link ReadCompletionFault#holdEverySend()}).
 * A thread that waits on its own send completions (window, chain slots) must arm for every
 * completion; one that arms for solicited events only would sleep until its next heartbeat turn.
 * The heartbeat interval here is two minutes, so such a rule fails these tests by time-out, not by
 * a slow pass.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineSolicitedWakeTest {

    private static final Duration NO_HEARTBEAT_SOON = Duration.ofMinutes(2);

    /** A server that takes and releases every message, counting them and their bytes. */
    private static Consumer<EngineSocket> sink(AtomicInteger messages, AtomicLong bytes) {
        return s -> s.inbound(new EngineSocket.Inbound() {
            @Override
            public void onMessage(ByteBuf message) {
                bytes.addAndGet(message.readableBytes());
                message.release();
                messages.incrementAndGet();
                s.consumed(1);
            }

            @Override
            public void onClose(Throwable error) {
            }
        });
    }

    @Test
    void aThreadWaitingForItsSendWindowIsWokenByLateSendCompletions() throws Exception {
        // 40 messages of 6 KiB through a 16 KiB window: every third one waits for the send
        // completions of those before it, each released only once the client's I/O thread blocked.
        runAgainstLateSendCompletions(EngineConfig.defaults().withSendWindowBytes(16 * 1024), 40, 6 * 1024);
    }

    @Test
    void aThreadWaitingForChainSlotsIsWokenByLateSendCompletions() throws Exception {
        // 200 tiny messages through a 4-deep send queue: the chain fills with requests whose
        // completions come late.
        runAgainstLateSendCompletions(EngineConfig.defaults().withSendQueueDepth(4), 200, 64);
    }

    @Test
    void aThreadWaitingForARendezvousAnswerSleepsUntilTheSolicitedAnswerAndCompletes() throws Exception {
        // A 1 MiB message waits for the server's answer (solicited) and then for its WRITEs' window.
        runAgainstLateSendCompletions(EngineConfig.defaults().withSendWindowBytes(128 * 1024), 3, 1 << 20);
    }

    @Test
    void anIdleThreadArmsForSolicitedEventsOnlyAndIsWokenByData() throws Exception {
        // The saving itself: with nothing to wait for but the peer's data, the arm is solicited-only
        // (a heartbeat, a credit or our own send completions do not wake it), and data still wakes it.
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()),
                EngineConfig.defaults().withHeartbeatInterval(NO_HEARTBEAT_SOON), IdleStrategy.BLOCK, EngineHarness.echo())) {
            EngineSocket socket = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineTest.Collector in = new EngineTest.Collector();
            socket.inbound(in);
            for (int i = 0; i < 50; i++) {
                Semaphore solicitedOnlyArm = new Semaphore(0);
                h.client.blockHook = solicitedOnly -> {
                    if (solicitedOnly) {
                        solicitedOnlyArm.release();
                    }
                };
                h.client.execute(() -> { }); // a turn, so that the client blocks again with the hook in place
                assertThat(solicitedOnlyArm.tryAcquire(30, TimeUnit.SECONDS))
                        .as("round %d: the idle client armed solicited-only", i).isTrue();
                h.client.blockHook = null;
                ByteBuf m = h.clientMemory.byteBufAllocator().directBuffer(64).writeInt(i).writeZero(60);
                assertThat(socket.offer(m)).isTrue();
                ByteBuf echo = in.take(h);
                assertThat(echo.getInt(echo.readerIndex())).isEqualTo(i);
                echo.release();
                socket.consumed(1);
            }
            socket.close();
        }
    }

    private void runAgainstLateSendCompletions(EngineConfig engine, int count, int size) throws Exception {
        ReadCompletionFault late = new ReadCompletionFault();
        SoftFaults clientSide = SoftFaults.none().withReadCompletionFault(late);
        AtomicInteger contexts = new AtomicInteger();
        AtomicInteger received = new AtomicInteger();
        AtomicLong receivedBytes = new AtomicLong();
        EngineConfig config = engine.withHeartbeatInterval(NO_HEARTBEAT_SOON);
        try (EngineHarness h = new EngineHarness(
                () -> SoftContext.openLoopback(SoftConfig.defaults(), contexts.getAndIncrement() == 0 ? clientSide : SoftFaults.none()),
                config, IdleStrategy.BLOCK, sink(received, receivedBytes))) {
            EngineSocket socket = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            socket.inbound(new EngineTest.Collector());

            // The racing point: the client's I/O thread armed and is about to wait while send
            // completions are held. Only then are they released, as an RNIC's ACKs would arrive.
            Semaphore blockedWithHeldCompletions = new Semaphore(0);
            AtomicInteger solicitedOnlyWhileHeld = new AtomicInteger();
            h.client.blockHook = solicitedOnly -> {
                if (late.heldCompletions() > 0) {
                    if (solicitedOnly) {
                        solicitedOnlyWhileHeld.incrementAndGet();
                    }
                    blockedWithHeldCompletions.release();
                }
            };
            AtomicBoolean done = new AtomicBoolean();
            AtomicInteger releases = new AtomicInteger();
            Thread releaser = new Thread(() -> {
                try {
                    while (!done.get()) {
                        if (blockedWithHeldCompletions.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            late.release();
                            late.holdEverySend(); // what the woken thread posts next is held again
                            releases.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "late-completions");
            late.holdEverySend();
            releaser.start();
            try {
                for (int i = 0; i < count; i++) {
                    ByteBuf m = h.clientMemory.byteBufAllocator().directBuffer(size, size);
                    m.writerIndex(size);
                    assertThat(socket.offer(m)).isTrue();
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (received.get() < count && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertThat(received.get())
                        .as("messages through, with %d releases of late send completions; the client armed for solicited events "
                                + "only %d times while it held completions; client %s", releases.get(), solicitedOnlyWhileHeld.get(),
                                h.client.describeEngines())
                        .isEqualTo(count);
                assertThat(receivedBytes.get()).isEqualTo((long) count * size);
                assertThat(releases.get()).as("the client's I/O thread blocked with its own send completions outstanding").isPositive();
            } finally {
                done.set(true);
                releaser.join(10_000);
                late.release();
                h.client.blockHook = null;
            }
            socket.close();
        }
    }
}
