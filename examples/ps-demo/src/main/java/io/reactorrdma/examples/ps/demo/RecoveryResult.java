package io.reactorrdma.examples.ps.demo;

import io.reactorrdma.examples.ps.demo.measure.Timeline;

/**
 * The recovery arm: an inference run during which one replica was SIGKILLed and restarted.
 *
 * @param killed          which replica ("shard 0 replica 1, pid 1234")
 * @param requests        user requests answered
 * @param failed          user requests that failed (must be 0)
 * @param ejectMillis     kill to the replica's ejection (ejection counted or the replica no longer live), ms; -1 if not seen
 * @param downMillis      kill to restart, ms
 * @param startMillis     restart to the new process serving (its SHARD-READY line): a JVM start, ms
 * @param returnMillis    the new process serving to the first request the shard client sent it, ms; -1 if not seen
 * @param hedges          hedges sent by the shard clients during the arm
 * @param hedgesWon       hedges whose answer came first
 * @param retries         retries on another replica
 * @param budgetExhausted retries refused by the retry budget
 * @param ejections       ejections counted
 * @param timeline        requests per 100 ms with the kill and restart marked
 */
public record RecoveryResult(String killed, long requests, long failed, long ejectMillis, long downMillis, long startMillis,
                             long returnMillis,
                             long hedges, long hedgesWon, long retries, long budgetExhausted, long ejections, Timeline timeline) {
}
