package io.reactorrdma.examples.ps.ranker;

import java.util.Arrays;

/** The answer to one user request: each model's score, and the fetches and reply bytes it took. */
public final class RankResult {

    private final long userId;
    private final double[] scores;
    private final int fetches;
    private final long replyBytes;

    RankResult(long userId, double[] scores, int fetches, long replyBytes) {
        this.userId = userId;
        this.scores = scores;
        this.fetches = fetches;
        this.replyBytes = replyBytes;
    }

    public long userId() {
        return userId;
    }

    /** Model {@code model}'s score: the sum of the dot products of its rows with the user's vector. */
    public double score(int model) {
        return scores[model];
    }

    /** Every model's score, in model order (a copy). */
    public double[] scores() {
        return scores.clone();
    }

    /** The index of the best-scoring model. */
    public int best() {
        int best = 0;
        for (int m = 1; m < scores.length; m++) {
            if (scores[m] > scores[best]) {
                best = m;
            }
        }
        return best;
    }

    /** Shard fetches made (models x shards). */
    public int fetches() {
        return fetches;
    }

    /** Bytes of every fetch reply together. */
    public long replyBytes() {
        return replyBytes;
    }

    @Override
    public String toString() {
        return "RankResult{user=" + userId + ", scores=" + Arrays.toString(scores) + ", fetches=" + fetches
                + ", replyBytes=" + replyBytes + "}";
    }
}
