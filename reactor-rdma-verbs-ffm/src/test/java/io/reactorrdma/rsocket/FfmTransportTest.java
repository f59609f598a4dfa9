package io.reactorrdma.rsocket;

import io.reactorrdma.verbs.ffm.testing.FfmOnTheEmulation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * RSocket's TransportTest over the {@code ffm} provider on the emulated rdma-core: plain, without its two load tests,
 * which the soft fabrics' variants run (over the emulation they add 50 s to the build, which must stay under 13 min on
 * two cores).
 */
class FfmTransportTest extends RdmaTransportTestSupport {

    @TempDir
    static Path dir;

    FfmTransportTest() {
        super("ffm", false, false);
    }

    @BeforeAll
    static void pointFfmAtTheEmulation() throws Exception {
        FfmOnTheEmulation.use(dir);
    }

    @AfterAll
    static void clear() {
        FfmOnTheEmulation.clear();
    }

    @Override
    @Test
    @Disabled("a load test (1,024 channels of 256 payloads each way, 34 s here); the soft fabrics' variants run it")
    public void requestChannel256() {
    }

    @Override
    @Test
    @Disabled("a load test (200,000 payloads each way, 14 s here); the soft fabrics' variants run it")
    public void requestChannel200_000() {
    }
}
