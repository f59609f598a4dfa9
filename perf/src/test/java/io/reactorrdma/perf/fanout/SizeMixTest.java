package io.reactorrdma.perf.fanout;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SizeMixTest {

    @Test
    void sharesAddUpAndTheMeanIsAsDocumented() {
        assertThat(Arrays.stream(SizeMix.PERCENT).sum()).isEqualTo(100);
        assertThat(SizeMix.meanBytes() / 1024).isCloseTo(95.2, within(0.05));
        assertThat(SizeMix.describe()).isEqualTo("4k 40%, 16k 25%, 64k 20%, 256k 10%, 1m 5% (mean 95.2 KiB)");
    }

    @Test
    void drawsFollowTheShares() {
        SplittableRandom random = new SplittableRandom(1);
        int n = 100_000;
        int[] counts = new int[SizeMix.SIZES.length];
        for (int i = 0; i < n; i++) {
            counts[Arrays.binarySearch(SizeMix.SIZES, SizeMix.draw(random))]++;
        }
        for (int i = 0; i < counts.length; i++) {
            assertThat(counts[i] * 100.0 / n).as("share of %d bytes", SizeMix.SIZES[i]).isCloseTo(SizeMix.PERCENT[i], within(1.0));
        }
    }
}
