package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static io.reactorrdma.verbs.VerbsFixture.post;
import static io.reactorrdma.verbs.VerbsFixture.rdma;
import static io.reactorrdma.verbs.VerbsFixture.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Strict mode, byte_len: verbs define {@code byte_len} only for receives, RDMA READ and atomics; mlx5
 * leaves it stale for SEND and WRITE. Strict mode poisons it there, so nothing can come to rely on it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StrictByteLenTest {

    private VerbsFixture f;

    private static SoftContext strict() {
        return SoftContext.openLoopback(SoftConfig.defaults().withStrict(true));
    }

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    void sendAndWriteCompletionsReportNoByteLengthWhileReceivesAndReadsDo() {
        f = new VerbsFixture(strict(), strict(), QpAttributes::create);
        f.postRecv(f.qpB, f.mrB, 1, 0, 256);
        f.postRecv(f.qpB, f.mrB, 2, 256, 256);
        post(f.qpA, send(10, f.mrA, 0, 100));
        post(f.qpA, rdma(WrOpcode.WRITE, 11, f.mrA, 0, 200, f.mrB.address() + 4096, f.mrB.rkey()));
        post(f.qpA, rdma(WrOpcode.WRITE_WITH_IMM, 12, f.mrA, 0, 300, f.mrB.address() + 8192, f.mrB.rkey()).immData(7));
        post(f.qpA, rdma(WrOpcode.READ, 13, f.mrA, 1024, 400, f.mrB.address() + 4096, f.mrB.rkey()));
        for (WorkCompletion wc : f.await(f.cqA, 4)) {
            assertThat(wc.isSuccess()).as("%s", wc).isTrue();
            if (wc.opcode() == WcOpcode.RDMA_READ) {
                assertThat(wc.byteLen()).as("READ defines byte_len").isEqualTo(400);
            } else {
                assertThat(wc.byteLen()).as("byte_len of %s is undefined in verbs: poisoned", wc).isEqualTo(-1);
            }
        }
        var recvs = f.await(f.cqB, 2);
        assertThat(recvs.get(0).byteLen()).as("a receive defines byte_len").isEqualTo(100);
        assertThat(recvs.get(1).opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(recvs.get(1).byteLen()).isEqualTo(300);
    }

    @Test
    void failedSendCompletionsReportNoByteLength() {
        f = new VerbsFixture(strict(), strict(), QpAttributes::create);
        post(f.qpA, rdma(WrOpcode.WRITE, 20, f.mrA, 0, 64, f.mrB.address(), f.mrB.rkey() ^ 0x00FF0000));
        WorkCompletion wc = f.awaitOne(f.cqA);
        assertThat(wc.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(wc.byteLen()).isEqualTo(-1);
    }

    @Test
    void withoutStrictModeTheSoftProviderKeepsReportingTheLength() {
        SoftConfig lax = SoftConfig.defaults().withStrict(false);
        f = new VerbsFixture(SoftContext.openLoopback(lax), SoftContext.openLoopback(lax), QpAttributes::create);
        f.postRecv(f.qpB, f.mrB, 1, 0, 256);
        post(f.qpA, send(10, f.mrA, 0, 100));
        assertThat(f.awaitOne(f.cqA).byteLen()).isEqualTo(100);
    }
}
