package io.reactorrdma.verbs.disni;

import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.VerbsException;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a host with several RDMA devices rdma_cm may resolve a peer through another device than the
 * context's; librdmacm's rdma_create_qp then fails with EINVAL (id->verbs != pd->context), which
 * libdisni throws as an IOException (it never returns null). That must become the error that says
 * what happened and which property fixes it.
 */
class MultiDeviceTest {

    @Test
    void einvalFromRdmaCreateQpNamesTheOtherDeviceAndTheProperty() {
        // libdisni 2.1: JNU_ThrowIOExceptionWithLastError(env, "j2c::createQP: rdma_create_qp failed") → "%s: %s\n"
        IOException thrown = new IOException("j2c::createQP: rdma_create_qp failed: Invalid argument\n");
        VerbsException e = DisniQueuePair.createQpFailed(thrown, "mlx5_0", QpAttributes.create(CmTeardownTest.NO_CQ));
        assertThat(e).hasMessageContaining("another RDMA device").hasMessageContaining("mlx5_0")
                .hasMessageContaining("-Dreactor.rdma.disni.address").hasCause(thrown);
    }

    @Test
    void otherCreateQpFailuresNameTheDepthsAndTheMemlockLimit() {
        IOException thrown = new IOException("j2c::createQP: rdma_create_qp failed: Cannot allocate memory\n");
        VerbsException e = DisniQueuePair.createQpFailed(thrown, "mlx5_0", QpAttributes.create(CmTeardownTest.NO_CQ));
        assertThat(e).hasMessageContaining("32/32").hasMessageContaining("ulimit -l").hasMessageNotContaining("another RDMA device");
    }

    @Test
    void anIdWithoutADeviceIsNotOnTheContextsDevice() {
        assertThat(DisniQueuePair.sameDevice(null, null)).isFalse();
    }
}
