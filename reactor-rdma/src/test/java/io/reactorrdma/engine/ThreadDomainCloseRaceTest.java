package io.reactorrdma.engine;

import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread domain told to close ends its loop, closes its engines, then keeps turning while they drain. A connection
 * accepted meanwhile is registered by one of those turns: its engine must be closed too, or it outlives the domain
 * with its queue pair and buffers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ThreadDomainCloseRaceTest {

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
