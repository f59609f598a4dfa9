package io.reactorrdma.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** perf's --help lists the doctor command. */
class DoctorInPerfUsageTest {

    @Test
    void theUsageListsTheDoctor() {
        assertThat(Usage.text()).contains("java -jar reactor-rdma-perf.jar doctor [--provider auto|disni|shm|ffm]");
    }
}
