package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.VerbsConformanceSuite;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The verbs conformance suite on the ffm provider over the emulated rdma-core: the provider's connection manager,
 * queue pairs and completion queues run against libraries whose operation tables, event channels and completion
 * channels are real, loaded by path (nothing global changes).
 */
class FfmConformanceTest extends VerbsConformanceSuite {

    @TempDir
    static Path dir;

    private static FfmSettings settings;

    @BeforeAll
    static void buildEmulation() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
    }

    @Override
    protected VerbsContext openContext() {
        return FfmContext.open(settings);
    }

    @Override
    protected void vanish(VerbsContext context) {
        context.close();
    }

    @Override
    protected Duration peerDeathBound() {
        return Duration.ofSeconds(30);
    }

    @Override
    protected String vanishedPeerRulesDifferBecause() {
        return "the emulated rdma-core does not model a dead peer (no DREQ from a killed process's ids, no transport "
                + "retries against a host that went away); on hardware the rules are those of the disni provider";
    }
}
