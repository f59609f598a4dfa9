package io.reactorrdma.perf.verbs;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.measure.Patterns;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WorkCompletion;

import java.nio.ByteBuffer;

/**
 * The passive end of write-bw: registers a REMOTE_WRITE region, hands its address and rkey to the
 * client in the accept's private data, then sleeps (blocking notification: WRITEs need no CPU here)
 * until the client's closing SEND; reports the region's CRC32 and waits for the disconnect.
 */
public final class WriteBwServer {

    /** Accept private data: address (8), rkey (4), length (4), big-endian. */
    static final int PRIVATE_DATA_SIZE = 16;
    /** The closing SEND's buffer. */
    static final int CONTROL_SIZE = 64;

    private WriteBwServer() {
    }

    public static ServerTask task(VerbsContext ctx, int port, int size) {
        return task(ctx, "127.0.0.1", port, size);
    }

    public static ServerTask task(VerbsContext ctx, String host, int port, int size) {
        return (reporter, stop) -> {
            try (CmListener listener = RdmaListen.listen(ctx, host, port)) {
                reporter.report(PeerReporter.READY, Integer.toString(listener.localAddress().getPort()));
                ConnectionRequest request = RdmaEndpoint.awaitRequest(listener, stop);
                try (RdmaEndpoint ep = RdmaEndpoint.create(ctx, 1, 1)) {
                    MemoryRegion target = ep.allocate(size, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
                    MemoryRegion control = ep.allocate(CONTROL_SIZE, AccessFlags.LOCAL_WRITE);
                    RecvWr[] recv = {new RecvWr()};
                    recv[0].setSge(control, 0, CONTROL_SIZE);
                    ep.qp.postRecv(recv, 0, 1);
                    ByteBuffer privateData = ByteBuffer.allocate(PRIVATE_DATA_SIZE)
                            .putLong(target.address()).putInt(target.rkey()).putInt(size).flip();
                    ep.accept(request, privateData);
                    CqWaiter waiter = new CqWaiter(ep.cq, PollMode.BLOCK);
                    WorkCompletion[] wcs = {new WorkCompletion()};
                    while (ep.isConnected() && !stop.getAsBoolean()) {
                        if (waiter.await(wcs) == 0) {
                            continue;
                        }
                        WorkCompletion wc = wcs[0];
                        if (!wc.isSuccess()) {
                            throw new PerfException("the closing message failed: " + wc);
                        }
                        if (wc.opcode() == WcOpcode.RECV) {
                            reporter.report(PeerReporter.VERIFY, Patterns.crc32(target.buffer(), size));
                        }
                    }
                }
            }
        };
    }
}
