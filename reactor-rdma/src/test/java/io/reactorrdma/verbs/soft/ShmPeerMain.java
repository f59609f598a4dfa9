package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.zip.CRC32;

/**
 * The peer process of {@link ShmCrossProcessTest}: listens on shm, accepts one connection, and
 * serves requests until the connection ends or its standard input closes. Prints
 * {@code READY <contextId> <regionAddress> <regionRkey>} once listening.
 *
 * <p>Requests arrive as SENDs whose first byte says what to do:
 * {@code 'E'} echo the whole message back; {@code 'C' offset(int) length(int)} answer with the
 * CRC32 of that range of our region (written by the client's WRITEs).
 *
 * <p>Arguments: directory, port, peer timeout in ms, and optionally how long one blocking wait
 * for a completion notification lasts in ms (default 100) before the loop polls again.
 */
public final class ShmPeerMain {

    static final int RECV_SIZE = 4 * 1024 * 1024 + 64;
    static final int RECV_DEPTH = 4;
    static final int REGION_SIZE = 8 * 1024 * 1024;

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int port = Integer.parseInt(args[1]);
        long awaitMillis = args.length > 3 ? Long.parseLong(args[3]) : 100;
        SoftConfig config = SoftConfig.defaults().withShmDirectory(Paths.get(dir))
                .withPeerTimeout(Duration.ofMillis(Long.parseLong(args[2])));
        Thread stdinWatch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // wait for the parent to go away
                }
            } catch (Exception ignored) {
                // fall through
            }
            System.exit(0);
        });
        stdinWatch.setDaemon(true);
        stdinWatch.start();
        try (SoftContext ctx = SoftContext.openShm(config)) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(256);
            QueuePair qp = ctx.createQp(pd,
                    QpAttributes.create(cq).withMaxRecvWr(RECV_DEPTH).withRnrRetry(QpAttributes.RNR_RETRY_INFINITE));
            MemoryRegion recv = pd.allocate(RECV_SIZE * RECV_DEPTH, AccessFlags.LOCAL_WRITE);
            MemoryRegion region = pd.allocate(REGION_SIZE, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            MemoryRegion reply = pd.allocate(RECV_SIZE, AccessFlags.LOCAL_WRITE);
            RecvWr[] rwr = {new RecvWr()};
            for (int i = 0; i < RECV_DEPTH; i++) {
                rwr[0].wrId(i).setSge(recv, (long) i * RECV_SIZE, RECV_SIZE);
                qp.postRecv(rwr, 0, 1);
            }
            try (CmListener listener = ctx.listen(new InetSocketAddress("127.0.0.1", port), 1)) {
                System.out.println("READY " + ctx.id() + " " + region.address() + " " + region.rkey());
                System.out.flush();
                ConnectionRequest request = listener.poll(Duration.ofSeconds(60));
                if (request == null) {
                    System.err.println("peer: no connection within 60 s");
                    return;
                }
                CmConnection conn = request.accept(qp, null);
                serve(conn, cq, qp, recv, region, reply, rwr, awaitMillis);
            }
        }
    }

    private static void serve(CmConnection conn, CompletionQueue cq, QueuePair qp, MemoryRegion recv, MemoryRegion region,
                              MemoryRegion reply, RecvWr[] rwr, long awaitMillis) throws InterruptedException {
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        SendWr[] swr = {new SendWr()};
        ByteBuffer in = recv.buffer();
        ByteBuffer out = reply.buffer();
        ByteBuffer mem = region.buffer();
        while (conn.isConnected()) {
            int n = cq.poll(wcs, wcs.length);
            if (n == 0) {
                cq.requestNotification();
                n = cq.poll(wcs, wcs.length);
                if (n == 0) {
                    cq.awaitNotification(awaitMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
                    continue;
                }
            }
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                if (!wc.isSuccess()) {
                    System.err.println("peer: " + wc);
                    return;
                }
                if (wc.opcode() != io.reactorrdma.verbs.work.WcOpcode.RECV) {
                    continue; // our own send completions
                }
                int slot = (int) wc.wrId();
                int base = slot * RECV_SIZE;
                byte kind = in.get(base);
                int len;
                if (kind == 'E') {
                    len = wc.byteLen();
                    out.put(0, in, base, len);
                } else {
                    int offset = in.getInt(base + 1);
                    int length = in.getInt(base + 5);
                    CRC32 crc = new CRC32();
                    crc.update(mem.duplicate().position(offset).limit(offset + length));
                    out.putLong(0, crc.getValue());
                    len = 8;
                }
                rwr[0].wrId(slot).setSge(recv, base, RECV_SIZE);
                qp.postRecv(rwr, 0, 1);
                swr[0].wrId(slot).opcode(WrOpcode.SEND).signaled(true).setSge(reply, 0, len);
                qp.postSend(swr, 0, 1);
            }
        }
    }
}
