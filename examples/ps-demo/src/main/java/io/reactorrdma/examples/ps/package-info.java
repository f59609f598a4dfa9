/**
 * A parameter server over RSocket on RDMA and TCP, as a service team would write one: the wire
 * layouts ({@code wire}), a shard holding embedding rows in registered memory ({@code shard}), a
 * ranker fanning fetches out to every shard (inference, {@code ranker}), a trainer that fetches,
 * computes and pushes gradients (training, {@code trainer}), and the demo that runs them as separate
 * processes and reports RDMA against TCP ({@code demo}). {@link io.reactorrdma.examples.ps.PsDemoMain}
 * is the jar's entry point: {@code demo}, {@code shard}, {@code ranker}, {@code trainer}.
 */
package io.reactorrdma.examples.ps;
