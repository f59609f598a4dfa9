package io.reactorrdma.examples.ps.demo;

import org.HdrHistogram.Histogram;

/**
 * One measured training arm: the trainers over RDMA with a given send window, or over TCP.
 *
 * @param arm             what the arm is ("rdma, window on", ...)
 * @param windowBytes     the send window of this JVM's engines; 0 over TCP
 * @param steps           trainer steps completed (fetch, compute, push to every shard, acked)
 * @param failed          steps that failed
 * @param seconds         measured wall time
 * @param pushNanos       each push's time from send to ack, ns
 * @param pushedBytes     bytes of every push
 * @param peakWindowBytes most bytes in flight on one engine of this JVM (rdma.window.peak.bytes); -1 over TCP
 * @param windowStalls    turns a socket waited for send-window room (rdma.window.stalls); -1 over TCP
 */
public record TrainingResult(String arm, long windowBytes, long steps, long failed, double seconds, Histogram pushNanos,
                             long pushedBytes, long peakWindowBytes, long windowStalls) {

    /** Steps per second. */
    public double stepsPerSecond() {
        return steps / seconds;
    }
}
