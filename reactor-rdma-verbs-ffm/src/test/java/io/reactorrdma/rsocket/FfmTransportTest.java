package io.reactorrdma.rsocket;

import io.reactorrdma.verbs.ffm.testing.FfmOnTheEmulation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** RSocket's TransportTest over the {@code ffm} provider on the emulated rdma-core: plain. */
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
}
