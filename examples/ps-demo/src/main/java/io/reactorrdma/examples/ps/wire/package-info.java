/**
 * The parameter server's binary messages: {@link io.reactorrdma.examples.ps.wire.FetchRequest},
 * {@link io.reactorrdma.examples.ps.wire.FetchReply}, {@link io.reactorrdma.examples.ps.wire.PushBatch}
 * and {@link io.reactorrdma.examples.ps.wire.PushAck}. Each class documents its layout (offsets from
 * the buffer's reader index, big-endian as Netty writes by default); encoders write into a buffer
 * from a given allocator (registered memory on RDMA, so the send needs no copy), decoders check
 * every length first and throw {@link java.lang.IllegalArgumentException} saying what is wrong, so
 * a peer's bad bytes fail one request and nothing else. Decoders read in place: they neither copy
 * nor release the buffer.
 */
package io.reactorrdma.examples.ps.wire;
