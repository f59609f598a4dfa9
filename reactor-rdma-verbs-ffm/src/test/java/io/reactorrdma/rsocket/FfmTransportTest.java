package io.reactorrdma.rsocket;

import io.reactorrdma.verbs.ffm.testing.FfmOnTheEmulation;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * RSocket's TransportTest over the {@code ffm} provider on the emulated rdma-core: plain, without its two load tests,
 * which the soft fabrics' variants run (over the emulation they add 50 s to the build, which must stay under 13 min on
 * two cores).
 */
@ExtendWith(FfmOnTheEmulation.class)
class FfmTransportTest extends RdmaTransportTestSupport {

    FfmTransportTest() {
        super("ffm", false, false);
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
