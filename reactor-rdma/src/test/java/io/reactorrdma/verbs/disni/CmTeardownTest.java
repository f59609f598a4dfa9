package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.disni.cm.CmEventLoop;
import io.reactorrdma.verbs.work.tracking.QpTable;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Teardown called from an I/O thread (Engine.fail → disconnect, close) is handed to the CM
 * thread and returns at once, even while the CM thread is busy (a slow rdma_cm call, or one
 * stuck for the whole call timeout).
 */
class CmTeardownTest {

    /** No events ever; each wait sleeps its timeout, as poll(2) on an idle channel does. */
    static final CmEventLoop.EventSource IDLE = (timeout, sink) -> {
        try {
            Thread.sleep(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    };

    static final CompletionQueue NO_CQ = new CompletionQueue() {
        @Override
        public int poll(WorkCompletion[] wcs, int max) {
            return 0;
        }

        @Override
        public void requestNotification() { }

        @Override
        public boolean awaitNotification(long timeout, TimeUnit unit) {
            return false;
        }

        @Override
        public void wakeup() { }

        @Override
        public int capacity() {
            return 64;
        }

        @Override
        public void close() { }
    };

    @Test
    void disconnectReturnsWhileTheCmThreadIsBusyAndRunsOnceItIsFree() throws Exception {
        CmEventLoop cm = new CmEventLoop(IDLE, "test-cm");
        DisniContext ctx = new DisniContext(DisniConfig.defaults(), cm);
        try {
            QpTable table = new QpTable();
            DisniQueuePair qp = new DisniQueuePair(ctx, null, QpAttributes.create(NO_CQ), null, null, table.add(32, 32));
            qp.established();
            DisniConnection c = new DisniConnection(ctx, qp, null, new InetSocketAddress(1), new InetSocketAddress(2),
                    ByteBuffer.allocate(0));
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch busy = new CountDownLatch(1);
            cm.submit("slow rdma_cm call", () -> {
                busy.countDown();
                return release.await(60, TimeUnit.SECONDS);
            });
            assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();

            CompletableFuture<Void> disconnect = CompletableFuture.runAsync(c::disconnect);
            try {
                disconnect.get(20, TimeUnit.SECONDS); // an I/O thread: must not wait for the CM thread
            } finally {
                release.countDown();
            }
            assertThat(qp.state()).isEqualTo(QpState.ERROR);
            assertThat(c.isConnected()).isFalse();
            assertThat(c.onDisconnect().get(30, TimeUnit.SECONDS)).contains("disconnected locally");
            assertThat(c.teardown().get(30, TimeUnit.SECONDS)).as("rdma_disconnect ran on the CM thread afterwards").isNull();
        } finally {
            cm.close();
        }
    }

    @Test
    void submitReturnsAtOnceAndQueuedCallsRunInOrder() throws Exception {
        CmEventLoop cm = new CmEventLoop(IDLE, "test-cm");
        try {
            CountDownLatch release = new CountDownLatch(1);
            StringBuilder order = new StringBuilder();
            cm.submit("slow", () -> release.await(60, TimeUnit.SECONDS));
            CompletableFuture<Object> a = cm.submit("a", () -> order.append('a'));
            CompletableFuture<Object> b = cm.submit("b", () -> order.append('b'));
            assertThat(a).isNotDone();
            release.countDown();
            b.get(30, TimeUnit.SECONDS);
            assertThat(a).isDone();
            assertThat(order.toString()).isEqualTo("ab");
        } finally {
            cm.close();
        }
    }

    @Test
    void callsQueuedBeforeCloseStillRunAndLaterOnesFailAtOnce() throws Exception {
        CmEventLoop cm = new CmEventLoop(IDLE, "test-cm");
        CompletableFuture<String> queued = cm.submit("destroy", () -> "ran");
        cm.close();
        assertThat(queued.get(30, TimeUnit.SECONDS)).isEqualTo("ran");
        assertThat(cm.submit("late", () -> "ran")).isCompletedExceptionally();
    }

    @Test
    void eventWaitsAreShortOnlyWhileCmWorkIsGoingOn() {
        CmEventLoop cm = new CmEventLoop(IDLE, "test-cm");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (cm.nextWaitMillis() != CmEventLoop.IDLE_WAIT_MILLIS && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(cm.nextWaitMillis()).as("idle").isEqualTo(CmEventLoop.IDLE_WAIT_MILLIS);
            cm.wake();
            assertThat(cm.nextWaitMillis()).as("after wake()").isEqualTo(CmEventLoop.BUSY_WAIT_MILLIS);
        } finally {
            cm.close();
        }
    }
}
