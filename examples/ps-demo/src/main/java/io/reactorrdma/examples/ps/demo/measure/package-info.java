/**
 * What the demo measures besides latency histograms: a timeline of requests in 100 ms buckets (the
 * recovery phase's chart), the registered-memory footprint sampled every 100 ms (the paper's Figure
 * 5), CPU time of this JVM, the context switches of processes' threads from Linux's /proc, and
 * the meters read from the engines' and shard clients' registries.
 */
package io.reactorrdma.examples.ps.demo.measure;
