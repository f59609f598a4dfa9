package io.reactorrdma.perf.floor;

import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;

import java.nio.file.Path;

/** The pong end of shm-floor: spins on the ping counter and echoes each new value, until STOP. */
public final class ShmFloorServer {

    private static final int SPINS_PER_STOP_CHECK = 1 << 16;

    private ShmFloorServer() {
    }

    public static ServerTask task(Path file) {
        return (reporter, stop) -> {
            try (ShmFloorChannel ch = ShmFloorChannel.map(file, false)) {
                reporter.report(PeerReporter.READY, "0");
                long last = 0;
                int spins = 0;
                while (true) {
                    long v = ch.readPing();
                    if (v != last) {
                        if (v == ShmFloorChannel.STOP) {
                            return;
                        }
                        ch.pong(v);
                        last = v;
                    } else {
                        Thread.onSpinWait();
                        if (++spins == SPINS_PER_STOP_CHECK) {
                            spins = 0;
                            if (stop.getAsBoolean()) {
                                return;
                            }
                        }
                    }
                }
            }
        };
    }
}
