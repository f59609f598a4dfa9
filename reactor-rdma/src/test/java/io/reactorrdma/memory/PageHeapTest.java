package io.reactorrdma.memory;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Best-fit page runs across blocks ({@link PageHeap}) and the bounded thread cache of page runs ({@link PageRunCache}). */
class PageHeapTest {

    private static final int BLOCK = 1 << 20;            // 128 pages of 8 KiB
    private static final int PAGES = BLOCK / SizeClasses.PAGE_SIZE;

    private VerbsContext ctx;
    private ProtectionDomain pd;
    private final List<Block> blocks = new ArrayList<>();

    @BeforeEach
    void open() {
        ctx = SoftContext.openLoopback(SoftConfig.defaults());
        pd = ctx.allocPd();
    }

    @AfterEach
    void close() {
        blocks.forEach(b -> b.region.close());
        ctx.close();
    }

    private Block block() {
        Block b = new Block(pd.allocate(BLOCK, AccessFlags.LOCAL_WRITE), false);
        blocks.add(b);
        return b;
    }

    @Test
    void takesTheSmallestFreeExtentThatFitsInAnyBlock() {
        PageHeap heap = new PageHeap(PAGES);
        Block a = block();
        Block b = block();
        heap.addBlock(a);
        heap.addBlock(b);
        int[] first = new int[1];
        // leave free: a [10, 15) (5 pages), b [40, 43) (3 pages), b [100, 128) (28 pages)
        assertThat(heap.take(PAGES, first)).isIn(a, b);
        assertThat(heap.take(PAGES, first)).isIn(a, b);
        assertThat(heap.take(1, first)).as("both blocks are taken whole").isNull();
        heap.give(a, 10, 5);
        heap.give(b, 40, 3);
        heap.give(b, 100, 28);
        assertThat(heap.freePages()).isEqualTo(36);

        assertThat(heap.take(4, first)).as("4 pages: the 5-page extent, not the 28-page one").isSameAs(a);
        assertThat(first[0]).isEqualTo(10);
        assertThat(heap.take(3, first)).as("3 pages: the exact 3-page extent").isSameAs(b);
        assertThat(first[0]).isEqualTo(40);
        assertThat(heap.take(2, first)).as("2 pages: nothing of 1 or 2 is left but the 1-page rest of a; then 28").isSameAs(b);
        assertThat(first[0]).isEqualTo(100);
        assertThat(heap.take(27, first)).as("only 26 pages left in one piece").isNull();
        assertThat(heap.take(1, first)).isSameAs(a);
        assertThat(first[0]).isEqualTo(14);
        assertThat(heap.longestFree()).isEqualTo(26);
    }

    @Test
    void freedPagesMergeWithTheirNeighboursUntilTheBlockIsWholeAgain() {
        PageHeap heap = new PageHeap(PAGES);
        Block a = block();
        heap.addBlock(a);
        int[] first = new int[1];
        int[] starts = new int[PAGES / 8];
        for (int i = 0; i < starts.length; i++) {
            heap.take(8, first);
            starts[i] = first[0];
        }
        assertThat(heap.freePages()).isZero();
        assertThat(heap.take(1, first)).isNull();
        // give back in a shuffled order: every give merges with whatever free neighbours it has
        List<Integer> order = new ArrayList<>();
        for (int s : starts) {
            order.add(s);
        }
        java.util.Collections.shuffle(order, new Random(7));
        for (int i = 0; i < order.size(); i++) {
            boolean empty = heap.give(a, order.get(i), 8);
            assertThat(empty).isEqualTo(i == order.size() - 1);
        }
        assertThat(heap.longestFree()).as("one extent spans the block again").isEqualTo(PAGES);
        assertThat(heap.take(PAGES, first)).isSameAs(a);
        heap.give(a, 0, PAGES);
        heap.removeBlock(a);
        assertThat(heap.freePages()).isZero();
        assertThat(heap.take(1, first)).isNull();
    }

    @Test
    void aDoubleFreeIsRefusedAndChangesNothing() {
        PageHeap heap = new PageHeap(PAGES);
        Block a = block();
        heap.addBlock(a);
        int[] first = new int[1];
        heap.take(16, first);
        heap.give(a, 0, 16);
        heap.take(4, first);
        long free = heap.freePages();
        assertThatThrownBy(() -> heap.give(a, 2, 4)).isInstanceOf(IllegalStateException.class).hasMessageContaining("already free");
        assertThat(heap.freePages()).isEqualTo(free);
        assertThatThrownBy(() -> heap.removeBlock(a)).isInstanceOf(IllegalStateException.class).hasMessageContaining("not empty");
    }

    @Test
    void randomTakesAndGivesNeverOverlapAndAlwaysMergeBack() {
        PageHeap heap = new PageHeap(PAGES);
        Block[] bs = {block(), block(), block()};
        for (Block b : bs) {
            heap.addBlock(b);
        }
        Random r = new Random(11);
        List<int[]> live = new ArrayList<>(); // {block index, first, pages}
        boolean[][] taken = new boolean[bs.length][PAGES];
        int[] first = new int[1];
        for (int i = 0; i < 20_000; i++) {
            if (!live.isEmpty() && (r.nextBoolean() || live.size() > 40)) {
                int[] run = live.remove(r.nextInt(live.size()));
                heap.give(bs[run[0]], run[1], run[2]);
                for (int p = run[1]; p < run[1] + run[2]; p++) {
                    taken[run[0]][p] = false;
                }
            } else {
                int n = 1 + r.nextInt(24);
                Block b = heap.take(n, first);
                if (b == null) {
                    assertThat(heap.longestFree()).isLessThan(n);
                    continue;
                }
                int bi = java.util.Arrays.asList(bs).indexOf(b);
                for (int p = first[0]; p < first[0] + n; p++) {
                    assertThat(taken[bi][p]).as("page %d of block %d handed out twice", p, bi).isFalse();
                    taken[bi][p] = true;
                }
                live.add(new int[]{bi, first[0], n});
            }
        }
        for (int[] run : live) {
            heap.give(bs[run[0]], run[1], run[2]);
        }
        assertThat(heap.freePages()).isEqualTo(3L * PAGES);
        assertThat(heap.longestFree()).isEqualTo(PAGES);
        for (Block b : bs) {
            assertThat(b.isEmpty()).isTrue();
            heap.removeBlock(b);
        }
    }

    @Test
    void theThreadCacheOfPageRunsStaysWithinItsBytesAndReusesRunsOfAboutTheRightSize() {
        int blockSize = 4 << 20;
        BlockSource source = new BlockSource(pd, AccessFlags.LOCAL_WRITE, blockSize, blockSize, false);
        long cap = 1 << 20;
        PageRunCache cache = new PageRunCache(cap, source.blockPages());
        int[] first = new int[1];
        List<Chunk> runs = new ArrayList<>();
        for (int pages : new int[]{9, 16, 16, 24, 40, 64, 100, 200}) {
            Block b = source.takePages(pages, first);
            runs.add(new Chunk(null, b, first[0] * SizeClasses.PAGE_SIZE, pages * SizeClasses.PAGE_SIZE, -1, null, first[0]));
        }
        long freeBefore = source.freePages();
        for (Chunk c : runs) {
            cache.put(c, source);
            assertThat(cache.bytes()).as("cached bytes after putting %s", c).isLessThanOrEqualTo(cap);
        }
        long given = (source.freePages() - freeBefore) * SizeClasses.PAGE_SIZE;
        assertThat(given + cache.bytes()).as("every run is either cached or back in the blocks")
                .isEqualTo(runs.stream().mapToLong(Chunk::capacity).sum());
        assertThat(runs.get(7).capacity()).as("200 pages alone pass the bound").isGreaterThan((int) cap);

        // what is cached now: runs were evicted largest first; take one of about the right size back
        Chunk small = cache.take(16);
        assertThat(small).isNotNull();
        assertThat(small.capacity()).isEqualTo(16 * SizeClasses.PAGE_SIZE);
        assertThat(cache.take(17)).as("17 pages: nothing of 17 to 19 pages cached").isNull();
        Chunk nine = cache.take(8);
        assertThat(nine).as("8 pages may take a 9-page run (at most an eighth more)").isNotNull();
        assertThat(nine.capacity()).isEqualTo(9 * SizeClasses.PAGE_SIZE);
        assertThat(cache.take(8)).as("no other run of 8 or 9 pages").isNull();
        source.releaseAll();
    }
}
