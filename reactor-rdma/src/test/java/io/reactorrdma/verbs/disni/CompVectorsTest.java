package io.reactorrdma.verbs.disni;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CompVectorsTest {

    @Test
    void completionQueuesGoRoundRobinOverTheDevicesVectors() {
        CompVectors v = new CompVectors(4);
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            got.add(v.next());
        }
        assertThat(got).containsExactly(0, 1, 2, 3, 0, 1);
    }

    @Test
    void anUnknownVectorCountUsesVectorZero() {
        CompVectors v = new CompVectors(-1);
        assertThat(v.count()).isEqualTo(1);
        assertThat(v.next()).isZero();
        assertThat(v.next()).isZero();
    }
}
