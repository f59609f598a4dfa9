package io.reactorrdma.verbs;

import java.util.concurrent.TimeUnit;
import io.reactorrdma.verbs.work.WorkCompletion;

/**
 * A completion queue ({@code struct ibv_cq}) with its completion channel. Polled by one thread at
 * a time (a thread domain's I/O thread).
 *
 * <p>Blocking without spinning follows the verbs idiom:
 * <pre>{@code
 * while (running) {
 *     int n = cq.poll(wcs, wcs.length);
 *     if (n > 0) { handle(wcs, n); continue; }
 *     cq.requestNotification();             // ibv_req_notify_cq
 *     n = cq.poll(wcs, wcs.length);          // close the race with a completion just before arming
 *     if (n > 0) { handle(wcs, n); continue; }
 *     cq.awaitNotification(1, SECONDS);     // ibv_get_cq_event + ibv_ack_cq_events
 * }
 * }</pre>
 */
public interface CompletionQueue extends AutoCloseable {

    /**
     * Moves up to {@code max} completions into {@code wcs[0..n)} ({@code ibv_poll_cq}).
     *
     * @return how many were filled, 0 when none is ready
     */
    int poll(WorkCompletion[] wcs, int max);

    /** Arms the queue for every completion: the next one added wakes a thread in {@link #awaitNotification}. */
    void requestNotification();

    /**
     * Arms the queue ({@code ibv_req_notify_cq(cq, solicited_only)}). With {@code solicitedOnly}
     * the arm is raised only by a receive completion of a SEND or WRITE_WITH_IMM that carried
     * {@link io.reactorrdma.verbs.work.SendWr#solicited()}, or by a completion with an error; successful send completions and
     * unsolicited receives are polled as usual but wake nobody. Without it, as
     * {@link #requestNotification()}.
     *
     * <p>The default arms for every completion: a provider that cannot tell solicited receives apart
     * wakes more often, never less.
     */
    default void requestNotification(boolean solicitedOnly) {
        requestNotification();
    }

    /**
     * Blocks until an armed queue gets a completion, or the timeout passes.
     *
     * @return true if woken by a completion event, false on timeout
     */
    boolean awaitNotification(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Wakes a thread blocked in {@link #awaitNotification} without a completion (it returns false):
     * how another thread hands an idle I/O thread new work (as an eventfd next to the completion
     * channel would). A wakeup while nobody waits makes the next wait return at once.
     */
    void wakeup();

    /** How many completions the queue holds at most (the {@code cqe} of {@code ibv_create_cq}). */
    int capacity();

    /** Destroys the queue ({@code ibv_destroy_cq}); fails while queue pairs still use it. */
    @Override
    void close();
}
