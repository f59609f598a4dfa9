package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.verbs.VerbsFixture.post;
import static io.reactorrdma.verbs.VerbsFixture.send;
import static org.assertj.core.api.Assertions.assertThat;

/** Strict mode: as a DiSNI queue pair, a soft one tells its number only once connect/accept returned. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StrictQpNumberTest {

    private VerbsFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    void theBuildRunsEveryTestInStrictMode() {
        assertThat(SoftConfig.defaults().strict())
                .as("surefire's argLine sets -D" + SoftConfig.STRICT_PROPERTY + "=true (parent pom test.argLine and its overrides)")
                .isTrue();
    }

    @Test
    void theNumberReadsZeroUntilTheConnectionIsMadeAndCompletionsCarryIt() {
        SoftConfig strict = SoftConfig.defaults().withStrict(true).withCmDelay(Duration.ofMillis(20));
        f = new VerbsFixture(SoftContext.openLoopback(strict), SoftContext.openLoopback(strict), QpAttributes::create,
                QpAttributes::create, false);
        assertThat(f.qpA.qpNum()).as("client qp before connect").isZero();
        assertThat(f.qpB.qpNum()).as("server qp before accept").isZero();
        long start = System.nanoTime();
        f.connect(null, null);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a connect takes CM steps")
                .isGreaterThanOrEqualTo(Duration.ofMillis(20));
        assertThat(f.qpA.qpNum()).isNotZero();
        assertThat(f.qpB.qpNum()).isNotZero();
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        post(f.qpA, send(2, f.mrA, 0, 8));
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.qpNum()).isEqualTo(f.qpB.qpNum());
        assertThat(f.awaitOne(f.cqA).qpNum()).isEqualTo(f.qpA.qpNum());
    }
}
