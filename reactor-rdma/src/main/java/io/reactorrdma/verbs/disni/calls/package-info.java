/**
 * The DiSNI calls the hardware provider makes on its hot path, built once and patched: a
 * {@link io.reactorrdma.verbs.disni.calls.SendCallCache} and
 * {@link io.reactorrdma.verbs.disni.calls.RecvCallCache} keep a prebuilt {@code SVCPostSend} /
 * {@code SVCPostRecv} per batch shape and rewrite its fields through DiSNI's setters
 * ({@link io.reactorrdma.verbs.disni.calls.CommandBuffers} holds the native work requests),
 * {@link io.reactorrdma.verbs.disni.calls.NotifyCalls} the completion queue's arm calls, and
 * {@link io.reactorrdma.verbs.disni.calls.DisniCodes} translates values between the SPI and DiSNI
 * (access flags, opcodes, statuses, the byte order of immediate data).
 *
 * <p>Internal to the DiSNI provider: public only so that {@code io.reactorrdma.verbs.disni} can use
 * it; no API. Unit-tested without the native library.
 */
package io.reactorrdma.verbs.disni.calls;
