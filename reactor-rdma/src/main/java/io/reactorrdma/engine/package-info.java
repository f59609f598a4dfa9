/**
 * The RDMA engine (DESIGN.md §4, paper §5.3–§6): from logical sockets to RC queue pairs.
 *
 * <p>Landed so far: the {@link io.reactorrdma.engine.WorkRequestChain} — the circular chain of
 * send work requests with its in-flight / pending / free segments, one doorbell per batch and
 * one signaled request per batch. The engine, its receive path, credits, rendezvous, send window,
 * sockets and thread domains build on it (issue "The RDMA engine, the backpressure module and the
 * public Reactor API").
 */
package io.reactorrdma.engine;
