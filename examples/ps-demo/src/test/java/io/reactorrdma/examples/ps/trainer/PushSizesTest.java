package io.reactorrdma.examples.ps.trainer;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PushSizesTest {

    @Test
    void aSampleOf100kHasThePapersMeanAndP99() {
        PushSizes sizes = new PushSizes(1);
        int[] sample = new int[100_000];
        long sum = 0;
        for (int i = 0; i < sample.length; i++) {
            sample[i] = sizes.next();
            sum += sample[i];
        }
        Arrays.sort(sample);
        double mean = (double) sum / sample.length;
        int p99 = sample[(int) (sample.length * 0.99) - 1];
        assertThat(mean).as("mean").isBetween(0.97 * 20 * 1024, 1.03 * 20 * 1024);
        assertThat((double) p99).as("p99").isBetween(0.95 * 50 * 1024, 1.05 * 50 * 1024);
        assertThat(sample[0]).isPositive();
    }

    @Test
    void impossiblePairsAreRefused() {
        assertThatThrownBy(() -> new PushSizes(1, 100, 90)).hasMessageContaining("no log-normal has mean 100.0 and p99 90.0");
        assertThatThrownBy(() -> new PushSizes(1, 100, 100_000)).hasMessageContaining("between 1 and 15 times");
    }
}
