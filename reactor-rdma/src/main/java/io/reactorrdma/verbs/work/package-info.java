/**
 * What the verbs SPI posts and polls: send and receive work requests
 * ({@link io.reactorrdma.verbs.work.SendWr}, {@link io.reactorrdma.verbs.work.RecvWr}), their
 * scatter/gather lists, the {@link io.reactorrdma.verbs.work.WorkCompletion}s a completion queue
 * fills, and the opcodes and statuses both carry ({@code struct ibv_send_wr}, {@code ibv_recv_wr},
 * {@code ibv_sge}, {@code ibv_wc}).
 *
 * <p>These are reusable objects owned by the caller: filling, posting and polling them allocates
 * nothing in steady state.
 */
package io.reactorrdma.verbs.work;
