package io.reactorrdma.memory;

import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-engine remote-writable pools: separate regions, lazy, bounded, and gone with their engine. */
class DestinationPoolTest {

    private VerbsContext ctx;
    private RegisteredAllocator allocator;

    @BeforeEach
    void open() {
        ctx = SoftContext.openLoopback(SoftConfig.defaults());
        allocator = new RegisteredAllocator(ctx.allocPd());
    }

    @AfterEach
    void close() {
        assertThat(allocator.closeAndReport()).as("live buffers at close").isZero();
        ctx.close();
    }

    @Test
    void twoPoolsNeverShareARegion() {
        RegisteredPool a = allocator.openDestinationPool("peer a");
        RegisteredPool b = allocator.openDestinationPool("peer b");
        List<Chunk> chunks = new ArrayList<>();
        for (int size : new int[]{9000, 70_000, 500_000, 3 << 20}) {
            Chunk ca = a.allocate(size);
            Chunk cb = b.allocate(size);
            assertThat(ca.region()).as("regions of %d-byte destinations of two peers", size).isNotSameAs(cb.region());
            assertThat(ca.rkey()).isNotEqualTo(cb.rkey());
            assertThat(AccessFlags.toString(ca.region().access())).contains("REMOTE_WRITE");
            chunks.add(ca);
            chunks.add(cb);
        }
        chunks.forEach(c -> c.owner.free(c));
        a.close();
        b.close();
    }

    @Test
    void aPoolRegistersNothingUntilUsedAndKeepsAtMostItsRetainedBlockAfterwards() {
        List<RegisteredPool> pools = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            pools.add(allocator.openDestinationPool("peer " + i));
        }
        assertThat(allocator.destinationStatistics().registeredBytes()).as("1,000 unused destination pools").isZero();
        RegisteredPool used = pools.get(0);
        List<Chunk> burst = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            burst.add(used.allocate(1 << 20)); // a burst of 1 MiB destinations: several blocks
        }
        assertThat(used.statistics().blocks()).isGreaterThan(1);
        burst.forEach(used::free);
        used.trim();
        used.trim();
        assertThat(used.statistics().registeredBytes()).as("after the burst and two trims: at most the retained bytes")
                .isLessThanOrEqualTo(AllocatorConfig.DEFAULT_DESTINATION_RETAINED_BYTES);
        pools.forEach(RegisteredPool::close);
        assertThat(allocator.destinationStatistics().registeredBytes()).isZero();
    }

    /** A 1 MiB message with its RSocket frame header: one per 2 MiB block. */
    private static final int LARGE_MESSAGE = (1 << 20) + 9;

    private static List<Chunk> burst(RegisteredPool pool, int n) {
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            chunks.add(pool.allocate(LARGE_MESSAGE));
        }
        return chunks;
    }

    @Test
    void burstsOfSeveralLargeDestinationsRegisterNothingAfterTheFirstWhileNoTrimRuns() {
        RegisteredPool pool = allocator.openDestinationPool("peer");
        List<Chunk> first = burst(pool, 4);
        assertThat(pool.statistics().blocks()).as("four 1 MiB messages in flight take four blocks").isEqualTo(4);
        first.forEach(pool::free);
        AllocatorStatistics warm = pool.statistics();
        for (int round = 0; round < 50; round++) {
            List<Chunk> chunks = burst(pool, 4);
            chunks.subList(0, 2).forEach(pool::free); // the working set swings: some blocks empty while others fill
            chunks.add(pool.allocate(LARGE_MESSAGE));
            chunks.subList(2, chunks.size()).forEach(pool::free);
        }
        AllocatorStatistics after = pool.statistics();
        assertThat(after.registrations()).as("registrations after 50 more bursts, no trim between").isEqualTo(warm.registrations());
        assertThat(after.deregistrations()).isEqualTo(warm.deregistrations());
        assertThat(after.registeredBytes()).as("the empty blocks wait for a trim")
                .isEqualTo(4L * AllocatorConfig.DEFAULT_DESTINATION_BLOCK_SIZE);
        pool.close();
    }

    @Test
    void twoTrimsWithNothingAllocatedLeaveAtMostTheRetainedBytes() {
        RegisteredPool pool = allocator.openDestinationPool("peer");
        burst(pool, 4).forEach(pool::free);
        assertThat(pool.trim()).as("the first trim after the burst: every block emptied since the last one").isZero();
        assertThat(pool.statistics().registeredBytes()).isEqualTo(4L * AllocatorConfig.DEFAULT_DESTINATION_BLOCK_SIZE);
        assertThat(pool.trim()).as("the second: the blocks stayed empty from one trim to the next").isEqualTo(3);
        assertThat(pool.statistics().registeredBytes()).isEqualTo(AllocatorConfig.DEFAULT_DESTINATION_RETAINED_BYTES);
        assertThat(pool.trim()).as("the retained block stays").isZero();
        assertThat(pool.statistics().deregistrations()).isEqualTo(3);
        pool.close();
        assertThat(allocator.destinationStatistics().registeredBytes()).isZero();
    }

    @Test
    void aBlockUsedAgainBetweenTrimsIsNotReleased() {
        RegisteredPool pool = allocator.openDestinationPool("peer");
        List<Chunk> first = burst(pool, 4);
        first.forEach(pool::free);
        pool.trim(); // all four have been empty since before this trim now
        Chunk again = pool.allocate(LARGE_MESSAGE);
        MemoryRegion used = again.region();
        pool.free(again); // empties again: new since the last trim
        assertThat(pool.trim()).as("the three blocks nobody used").isEqualTo(3);
        assertThat(used.isValid()).as("the block used between the trims stays registered").isTrue();
        assertThat(first.stream().map(Chunk::region).filter(r -> r != used).allMatch(r -> !r.isValid()))
                .as("the others are deregistered").isTrue();
        assertThat(pool.trim()).as("within the retained bound").isZero();
        assertThat(pool.statistics().registeredBytes()).isEqualTo(AllocatorConfig.DEFAULT_DESTINATION_RETAINED_BYTES);
        pool.close();
    }

    @Test
    void aBlockInUseAtATrimStaysAndTheRetainedBoundCountsWholeBlocks() {
        RegisteredAllocator none = new RegisteredAllocator(ctx.allocPd(), AllocatorConfig.defaults().withDestinationRetainedBytes(0));
        RegisteredPool pool = none.openDestinationPool("peer");
        List<Chunk> chunks = burst(pool, 3);
        pool.free(chunks.get(0));
        pool.trim();
        pool.trim();
        assertThat(pool.statistics().blocks()).as("two blocks in use, the empty one released (0 retained)").isEqualTo(2);
        pool.free(chunks.get(1));
        pool.free(chunks.get(2));
        pool.trim();
        assertThat(pool.statistics().blocks()).as("emptied since the last trim: still there").isEqualTo(2);
        pool.trim();
        assertThat(pool.statistics().registeredBytes()).isZero();
        assertThat(none.closeAndReport()).isZero();
    }

    @Test
    void theSharedPoolsStillReleaseAtOnceBeyondTheirBound() {
        RegisteredAllocator small = new RegisteredAllocator(ctx.allocPd(),
                AllocatorConfig.defaults().withBlockSize(1 << 20).withRetainedBytes(1 << 20).withThreadCachePageRunBytes(0));
        RegisteredPool pool = small.remoteWritable();
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            chunks.add(pool.allocate(600_000)); // one per 1 MiB block
        }
        chunks.forEach(pool::free);
        assertThat(pool.statistics().blocks()).as("no trim: the bound applies when a block empties").isEqualTo(1);
        assertThat(small.closeAndReport()).isZero();
    }

    @Test
    void aClosedPoolKeepsALiveDestinationUntilReleasedThenLeavesTheFigures() {
        RegisteredPool pool = allocator.openDestinationPool("peer");
        Chunk held = pool.allocate(100_000);
        pool.close();
        assertThat(allocator.liveBuffers()).as("a destination the application still holds").isEqualTo(1);
        assertThat(held.region().isValid()).as("its memory stays registered").isTrue();
        pool.free(held);
        assertThat(allocator.liveBuffers()).isZero();
        assertThat(allocator.destinationStatistics().registeredBytes()).isZero();
        assertThat(allocator.destinationStatistics().registrations()).as("counted after the pool left").isEqualTo(1);
    }
}
