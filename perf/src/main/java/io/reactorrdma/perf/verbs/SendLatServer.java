package io.reactorrdma.perf.verbs;

import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.VerbsContext;

/** The pong end of send-lat: answers every message received with one of the same size, until the client disconnects. */
public final class SendLatServer {

    private SendLatServer() {
    }

    public static ServerTask task(VerbsContext ctx, int port, int size, PollMode mode) {
        return task(ctx, "127.0.0.1", port, size, mode);
    }

    public static ServerTask task(VerbsContext ctx, String host, int port, int size, PollMode mode) {
        return (reporter, stop) -> {
            try (CmListener listener = RdmaListen.listen(ctx, host, port)) {
                reporter.report(PeerReporter.READY, Integer.toString(listener.localAddress().getPort()));
                ConnectionRequest request = RdmaEndpoint.awaitRequest(listener, stop);
                try (RdmaEndpoint ep = RdmaEndpoint.create(ctx, SendRecvChannel.SEND_DEPTH, SendRecvChannel.RECV_DEPTH)) {
                    MemoryRegion sendMr = ep.allocate(size, AccessFlags.LOCAL_WRITE);
                    MemoryRegion recvMr = ep.allocate(size, AccessFlags.LOCAL_WRITE);
                    SendRecvChannel channel = new SendRecvChannel(ep, sendMr, recvMr, size, mode);
                    channel.postInitialReceives();
                    ep.accept(request, null);
                    while (channel.awaitRecv(Long.MAX_VALUE, stop) >= 0) {
                        channel.send();
                    }
                }
            }
        };
    }
}
