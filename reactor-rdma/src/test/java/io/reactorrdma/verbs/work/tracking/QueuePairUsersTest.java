package io.reactorrdma.verbs.work.tracking;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A queue or domain waits for the teardown of queue pairs being closed, and refuses at once while one was never closed. */
class QueuePairUsersTest {

    @Test
    void waitsForQueuePairsBeingClosedUntilTheirTeardownReleasesThem() throws Exception {
        QueuePairUsers users = new QueuePairUsers("completion queue");
        users.attached();
        users.attached();
        users.closing();
        users.closing();
        users.released();
        CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> users.awaitReleased(Duration.ofMinutes(1)));
        assertThat(users.count()).isEqualTo(1);
        users.released(); // the last teardown ends: the waiting close goes on
        assertThat(closed.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(users.count()).isZero();
    }

    @Test
    void aQueuePairNeverClosedIsRefusedAtOnceAndATeardownThatDoesNotEndTimesOut() {
        QueuePairUsers users = new QueuePairUsers("protection domain");
        users.attached();
        assertThatThrownBy(() -> users.awaitReleased(Duration.ofMinutes(1))).isInstanceOf(IllegalStateException.class)
                .hasMessage("protection domain still has queue pairs that were not closed; close them first");
        users.closing();
        assertThat(users.awaitReleased(Duration.ofMillis(1))).as("its teardown did not end").isFalse();
        assertThat(new QueuePairUsers("completion queue").awaitReleased(Duration.ZERO)).as("none at all").isTrue();
    }

    @Test
    void aCreateGivenUpWhileAnotherQueuePairClosesLeavesThatOneClosing() {
        QueuePairUsers users = new QueuePairUsers("completion queue");
        users.attached(); // queue pair A
        users.closing(); // A closes: its teardown is queued on the CM thread
        users.attached(); // createQp B takes room here ...
        users.abandoned(); // ... and gives it back: its other queue refused
        assertThat(users.awaitReleased(Duration.ofMillis(1))).as("A is still being torn down, not 'never closed'").isFalse();
        users.released();
        assertThat(users.awaitReleased(Duration.ZERO)).isTrue();
    }
}
