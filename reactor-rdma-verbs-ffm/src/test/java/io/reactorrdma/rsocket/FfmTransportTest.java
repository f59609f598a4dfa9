package io.reactorrdma.rsocket;

import io.reactorrdma.verbs.ffm.testing.FfmOnTheEmulation;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * RSocket's TransportTest over the {@code ffm} provider on the emulated rdma-core: plain, without its two channel load
 * tests, which the shm variants run (over the emulation they add 48 s to the build).
 */
@ExtendWith(FfmOnTheEmulation.class)
class FfmTransportTest extends RdmaTransportTestSupport {

    FfmTransportTest() {
        super("ffm", false, false, false);
    }
}
