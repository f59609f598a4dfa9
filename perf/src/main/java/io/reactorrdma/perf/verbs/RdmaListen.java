package io.reactorrdma.perf.verbs;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.VerbsException;

import java.net.InetSocketAddress;

/** Listening for the benchmark's one client: on 127.0.0.1, or on the host given (hardware peers). */
final class RdmaListen {

    private static final int PORT_TRIES = 10;

    private RdmaListen() {
    }

    /** Listens on {@code port} (0: the provider picks), or on one of the next few ports if it is taken. */
    static CmListener listen(VerbsContext ctx, int port) {
        return listen(ctx, "127.0.0.1", port);
    }

    static CmListener listen(VerbsContext ctx, String host, int port) {
        VerbsException last = null;
        for (int i = 0; i < (port == 0 ? 1 : PORT_TRIES); i++) {
            try {
                return ctx.listen(new InetSocketAddress(host, port == 0 ? 0 : port + i), 1);
            } catch (VerbsException e) {
                last = e;
            }
        }
        throw new PerfException("cannot listen on " + host + " ports " + port + ".." + (port + PORT_TRIES - 1) + ": "
                + last.getMessage(), last);
    }
}
