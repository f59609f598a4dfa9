package io.reactorrdma.perf.verbs;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.Allocations;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.Patterns;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.measure.PeerSide;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The active end of write-bw: keeps up to {@link #WINDOW} WRITEs of the whole source region
 * outstanding to the peer's region, posted in batches of {@link #SIGNAL_EVERY} with one doorbell
 * and only the batch's last signaled. Ends with a SEND (ordered after every WRITE) and checks the
 * CRC32 the peer reports against the source's.
 */
public final class WriteBwClient {

    /** Send-queue depth: outstanding WRITEs at most (perftest's default tx-depth). */
    static final int WINDOW = 128;
    /** Every this-many-th WRITE is signaled; its completion retires the ones before it. */
    static final int SIGNAL_EVERY = 16;

    private final QueuePair qp;
    private final CqWaiter waiter;
    private final SendWr[] batch = new SendWr[SIGNAL_EVERY];
    private final WorkCompletion[] wcs = new WorkCompletion[WINDOW / SIGNAL_EVERY + 1];
    private long posted;
    private long completed;
    private long idleTicks;

    private WriteBwClient(RdmaEndpoint ep, MemoryRegion source, int size, long remoteAddress, int rkey, PollMode mode) {
        this.qp = ep.qp;
        this.waiter = new CqWaiter(ep.cq, mode);
        for (int i = 0; i < SIGNAL_EVERY; i++) {
            batch[i] = new SendWr().opcode(WrOpcode.WRITE).remote(remoteAddress, rkey).signaled(i == SIGNAL_EVERY - 1);
            batch[i].setSge(source, 0, size);
        }
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    public static Result run(VerbsContext ctx, PeerSide peer, CpuMeter cpu, PerfOptions o, Transport transport) {
        try (RdmaEndpoint ep = RdmaEndpoint.create(ctx, WINDOW, 1)) {
            MemoryRegion source = ep.allocate(o.size, AccessFlags.LOCAL_WRITE);
            MemoryRegion control = ep.allocate(WriteBwServer.CONTROL_SIZE, AccessFlags.LOCAL_WRITE);
            Patterns.fill(source.buffer(), 42);
            String expectedCrc = Patterns.crc32(source.buffer(), o.size);
            ByteBuffer remote = ep.connect(ctx, new InetSocketAddress(peer.host(), peer.port()), null);
            if (remote == null || remote.remaining() < WriteBwServer.PRIVATE_DATA_SIZE) {
                throw new PerfException("the peer's accept carried no region address and rkey");
            }
            long remoteAddress = remote.getLong(remote.position());
            int rkey = remote.getInt(remote.position() + 8);
            int remoteLength = remote.getInt(remote.position() + 12);
            if (remoteLength < o.size) {
                throw new PerfException("the peer's region has " + remoteLength + " bytes, fewer than --size " + o.size);
            }
            WriteBwClient client = new WriteBwClient(ep, source, o.size, remoteAddress, rkey, o.poll);
            Result result = client.measure(peer, cpu, o, transport);
            client.drain();
            client.sendClosing(control);
            String crc = peer.awaitReport(PeerReporter.VERIFY);
            if (crc == null) {
                Log.info(transport.id() + ": the peer prints its region's CRC32 on its own console (VERIFY line); expected " + expectedCrc);
                return result;
            }
            if (!crc.equals(expectedCrc)) {
                throw new PerfException("the peer's region does not hold what was written: CRC32 " + crc + ", expected " + expectedCrc);
            }
            Log.info(transport.id() + ": peer region verified (CRC32 " + crc + ")");
            return result;
        }
    }

    private Result measure(PeerSide peer, CpuMeter cpu, PerfOptions o, Transport transport) {
        long warmEnd = System.nanoTime() + o.warmupNanos();
        while (System.nanoTime() - warmEnd < 0) {
            pump();
        }
        peer.markCpu();
        long cpu0 = cpu.nanos();
        long start = System.nanoTime();
        long base = completed;
        long end = start + o.durationNanos();
        long alloc0 = Allocations.currentThread();
        long now = start;
        while (now - end < 0) {
            pump();
            now = System.nanoTime();
        }
        long allocated = CpuMeter.delta(alloc0, Allocations.currentThread());
        long ops = completed - base;
        long cpu1 = cpu.nanos();
        peer.markCpu();
        return new Result(o.scenario, transport, o.size, ops, null, Result.mibPerSecond(ops, o.size, now - start),
                Result.usPerOp(CpuMeter.delta(cpu0, cpu1), ops), Result.usPerOp(peer.cpuNanosBetweenMarks(), ops), allocated);
    }

    /** Fills the window, then takes the completions there are (waiting for one if nothing could be posted). */
    private void pump() {
        boolean postedAny = false;
        while (qp.freeSendSlots() >= SIGNAL_EVERY) {
            qp.postSend(batch, 0, SIGNAL_EVERY);
            posted += SIGNAL_EVERY;
            postedAny = true;
        }
        handle(postedAny ? waiter.poll(wcs) : waiter.await(wcs), !postedAny);
    }

    /** Waits until every posted WRITE has completed. */
    private void drain() {
        while (completed < posted) {
            handle(waiter.await(wcs), true);
        }
    }

    private void handle(int n, boolean waited) {
        if (n == 0) {
            if (waited && ++idleTicks * CqWaiter.IDLE_TICK_NANOS > SendRecvChannel.STALL_NANOS) {
                throw new PerfException("no WRITE completed for " + SendRecvChannel.STALL_NANOS / 1_000_000_000L + " s");
            }
            return;
        }
        idleTicks = 0;
        for (int i = 0; i < n; i++) {
            if (!wcs[i].isSuccess()) {
                throw new PerfException("a WRITE failed: " + wcs[i]);
            }
            completed += SIGNAL_EVERY;
        }
    }

    /** A SEND after the last WRITE (RC keeps them in order): the peer checks its region when it arrives. */
    private void sendClosing(MemoryRegion control) {
        SendWr[] send = {new SendWr().opcode(WrOpcode.SEND).signaled(true)};
        send[0].setSge(control, 0, 8);
        qp.postSend(send, 0, 1);
        while (true) {
            int n = waiter.await(wcs);
            if (n == 0) {
                if (++idleTicks * CqWaiter.IDLE_TICK_NANOS > SendRecvChannel.STALL_NANOS) {
                    throw new PerfException("the closing SEND did not complete");
                }
                continue;
            }
            if (!wcs[0].isSuccess()) {
                throw new PerfException("the closing SEND failed: " + wcs[0]);
            }
            return;
        }
    }
}
