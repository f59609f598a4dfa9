/**
 * Flow control as Reactive Streams demand (paper §5.4.2 and §6.3): the receive
 * credits and the send window, and the bridges that turn them into {@code request(n)}. No RDMA
 * types; the engine plugs these in.
 *
 * <pre>
 *  sender                                                   receiver
 *  ──────                                                   ────────
 *  Publisher ──request(n)── CapacityGatedSubscriber          subscriber ──request(n)──┐
 *                 │ n ≤ Capacity: free slots,                                          ▼
 *                 │   credits, window room                   CreditReturner: returns a credit per
 *                 ▼                                           consumed receive only against demand,
 *  sink: take a CreditCounter credit (and ByteWindow          in batches of depth/2
 *        bytes), post the SEND ─────── message ──────────▶  received()
 *                                                                         │
 *  CreditCounter.release(k) ◀──── credits, piggybacked or ─── takeCredits() (post k receives first)
 *   └─▶ onCreditsReturned ─▶ capacityAvailable()  in a credit message
 *  ByteWindow.release(bytes) on send completion ─▶ capacityAvailable()
 * </pre>
 *
 * <ul>
 *   <li>{@link io.reactorrdma.backpressure.CreditCounter} — the sender's count of the peer's
 *       receive credits, with a reserve only control messages may use.</li>
 *   <li>{@link io.reactorrdma.backpressure.ByteWindow} — the per-engine bound on bytes posted and
 *       not yet completed.</li>
 *   <li>{@link io.reactorrdma.backpressure.CreditReturner} — the receiver's decision of when
 *       consumed receives go back as credits: only against the subscriber's demand, in batches.
 *       A slow consumer thus stops its sender across the wire, with at most the receive-queue
 *       depth of messages in flight or waiting.</li>
 *   <li>{@link io.reactorrdma.backpressure.Capacity} — how many items the engine can take now.</li>
 *   <li>{@link io.reactorrdma.backpressure.CapacityGatedSubscriber} — subscribes to an outbound
 *       publisher and requests only what the capacity allows, more as it returns; no queue.</li>
 * </ul>
 *
 * <p>Everything here is thread-safe, lock-free (compare-and-set on single words) and allocates
 * nothing on the hot path. Protocol violations — a peer returning more credits than it was owed,
 * sending without a credit, releasing more window than is in flight — are
 * {@link java.lang.IllegalStateException}s with a message saying what was wrong; bad arguments are
 * {@link java.lang.IllegalArgumentException}s.
 */
package io.reactorrdma.backpressure;
