package io.reactorrdma.verbs.disni.cm;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener pairs rdma_cm requests with handshakes by client IP: clients on different hosts are
 * accepted concurrently (one stuck client no longer holds up everybody else for the accept
 * timeout), clients sharing an IP take turns, and a request nobody waits for is refused.
 */
class RequestPairingTest {

    private static long in(long seconds) {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    @Test
    void handshakesFromDifferentHostsWaitConcurrentlyAndGetTheirOwnRequests() throws Exception {
        RequestPairing<String> pairing = new RequestPairing<>();
        InetAddress a = InetAddress.getByName("10.0.0.1");
        InetAddress b = InetAddress.getByName("10.0.0.2");
        pairing.begin(a); // a's client is stuck: its request never comes
        CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> {
            try {
                pairing.begin(b);
                try {
                    return pairing.await(b, in(30));
                } finally {
                    pairing.end(b);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = in(30);
        while (!pairing.offer(b, "request-from-b") && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("request-from-b");
        assertThat(pairing.offer(InetAddress.getByName("10.0.0.9"), "stranger")).as("nobody waits: refuse").isFalse();
        assertThat(pairing.offer(a, "late-from-a")).isTrue();
        assertThat(pairing.await(a, in(30))).isEqualTo("late-from-a");
        assertThat(pairing.end(a)).isEmpty();
        assertThat(pairing.offer(a, "after-end")).isFalse();
    }

    @Test
    void clientsSharingAnIpTakeTurnsAndLeftoverRequestsAreReturnedToBeRefused() throws Exception {
        RequestPairing<String> pairing = new RequestPairing<>();
        InetAddress a = InetAddress.getByName("10.0.0.1");
        pairing.begin(a);
        CountDownLatch secondHasTurn = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                pairing.begin(a);
                secondHasTurn.countDown();
                pairing.end(a);
            } catch (InterruptedException ignored) {
                // test over
            }
        });
        t.start();
        assertThat(secondHasTurn.await(200, TimeUnit.MILLISECONDS)).as("the same IP waits for its turn").isFalse();
        assertThat(pairing.offer(a, "one")).isTrue();
        assertThat(pairing.offer(a, "two")).isTrue();
        assertThat(pairing.await(a, in(30))).isEqualTo("one");
        assertThat(pairing.end(a)).containsExactly("two");
        assertThat(secondHasTurn.await(30, TimeUnit.SECONDS)).isTrue();
        t.join(30_000);
    }
}
