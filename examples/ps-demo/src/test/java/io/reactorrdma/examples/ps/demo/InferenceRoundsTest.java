package io.reactorrdma.examples.ps.demo;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How the inference phase orders its measured rounds. */
class InferenceRoundsTest {

    @Test
    void roundsAreMirroredSoThatADriftWeighsOnBothTransportsAlike() {
        List<String> given = List.of("rdma", "tcp");
        assertThat(DemoRun.roundOrder(given, 1)).containsExactly("rdma", "tcp");
        assertThat(DemoRun.roundOrder(given, 2)).containsExactly("tcp", "rdma");
        assertThat(DemoRun.roundOrder(given, 3)).containsExactly("rdma", "tcp");
        assertThat(given).containsExactly("rdma", "tcp"); // the options' list is left as it was
    }
}
