package io.reactorrdma.memory;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.soft.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-engine remote-writable pools (issue 10, finding 14): separate regions, lazy, bounded, and gone with their engine. */
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
        assertThat(used.statistics().registeredBytes()).as("after the burst: at most the retained bytes")
                .isLessThanOrEqualTo(AllocatorConfig.DEFAULT_DESTINATION_RETAINED_BYTES);
        pools.forEach(RegisteredPool::close);
        assertThat(allocator.destinationStatistics().registeredBytes()).isZero();
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
