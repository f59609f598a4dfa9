package io.reactorrdma.engine;

import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.verbs.soft.SoftContext;
import io.reactorrdma.verbs.soft.fault.CompletionFault;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread domain told to close ends its loop, closes its engines, then keeps turning while they drain. A connection
 * accepted meanwhile is registered by one of those turns: its engine must be closed too, or it outlives the domain
 * with its queue pair and buffers. Once the loop has ended, tasks handed over run on the threads that hand them over,
 * one thread at a time.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ThreadDomainCloseRaceTest {

    /**
     * After the loop has ended, a task handed over runs on the thread that hands it over — unless another thread is
     * running the remaining tasks at that moment: then that thread runs it, once (the task queue has one consumer at
     * a time). The first task holds its thread inside the drain while a second thread hands a task over.
     */
    @Test
    void aTaskHandedOverWhileAnotherThreadRunsTheRemainingTasksRunsOnceOnThatThread() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "remaining-tasks");
            t.setDaemon(true);
            return t;
        });
        try (var ctx = SoftContext.openLoopback(SoftConfig.defaults());
             RegisteredAllocator memory = new RegisteredAllocator(ctx.allocPd())) {
            ThreadDomain domain = new ThreadDomain("ended-io", ctx, memory, EngineConfig.defaults(), IdleStrategy.BLOCK, 1, threads);
            domain.closeAsync().get(30, TimeUnit.SECONDS);
            CountDownLatch firstRunning = new CountDownLatch(1);
            CountDownLatch secondHandedOver = new CountDownLatch(1);
            AtomicInteger secondRuns = new AtomicInteger();
            AtomicReference<Thread> secondRanOn = new AtomicReference<>();
            CompletableFuture<Void> first = CompletableFuture.runAsync(() -> domain.execute(() -> {
                firstRunning.countDown();
                try {
                    secondHandedOver.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }), threads);
            assertThat(firstRunning.await(30, TimeUnit.SECONDS)).isTrue();
            domain.execute(() -> {
                secondRuns.incrementAndGet();
                secondRanOn.set(Thread.currentThread());
            });
            assertThat(secondRuns).as("left to the thread running the remaining tasks").hasValue(0);
            secondHandedOver.countDown();
            first.get(30, TimeUnit.SECONDS);
            assertThat(secondRuns).hasValue(1);
            assertThat(secondRanOn.get()).isNotSameAs(Thread.currentThread());
            domain.execute(secondRuns::incrementAndGet);
            assertThat(secondRuns).as("run at once when nobody else drains").hasValue(2);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void anEngineRegisteredWhileTheClosingDomainDrainsIsClosedToo() throws Exception {
        CompletionFault held = new CompletionFault();
        AtomicInteger contexts = new AtomicInteger();
        CompletableFuture<Engine> firstServerEngine = new CompletableFuture<>();
        EngineConfig config = EngineConfig.defaults().withDrainTimeout(Duration.ofSeconds(60));
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "second-client");
            t.setDaemon(true);
            return t;
        });
        // the harness opens the client's context first, then the server's: the server's completions can be held
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(), contexts.getAndIncrement() == 1
                ? SoftFaults.none().withCompletionFault(held) : SoftFaults.none()), config, IdleStrategy.BLOCK,
                s -> firstServerEngine.complete(s.engine));
             ThreadDomain secondClient = new ThreadDomain("client2-io", h.clientCtx, h.clientMemory, config, IdleStrategy.BLOCK, 8,
                     threads)) {
            h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            Engine first = firstServerEngine.get(30, TimeUnit.SECONDS);
            held.delay(first.qpNum()); // its flushes are held back: the closing domain drains it until they come

            CountDownLatch draining = new CountDownLatch(1);
            CountDownLatch secondRegistered = new CountDownLatch(1);
            h.server.blockHook = solicitedOnly -> { // on the server's I/O thread, each time it is about to wait
                int drainingNow = h.server.drainingEngines();
                if (drainingNow > 0) {
                    draining.countDown();
                }
                if (drainingNow > 0 && h.server.registeredEngines() >= 2) {
                    secondRegistered.countDown();
                }
            };
            CompletableFuture<Void> ended = h.server.closeAsync();
            assertThat(draining.await(60, TimeUnit.SECONDS)).as("the closing domain drains its engine").isTrue();

            CompletableFuture<EngineSocket> second = secondClient.openSocket(h.address(), Duration.ofSeconds(20));
            assertThat(secondRegistered.await(60, TimeUnit.SECONDS)).as("a second engine registered while the domain drains")
                    .isTrue();
            held.deliver();
            ended.get(90, TimeUnit.SECONDS);
            assertThat(h.server.engineCount()).as("engines the ended domain left open").isZero();
            second.handle((s, error) -> null).get(60, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
    }
}
