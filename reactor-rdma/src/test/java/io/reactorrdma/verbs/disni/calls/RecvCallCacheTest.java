package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.verbs.IbvRecvWR;
import io.reactorrdma.verbs.work.RecvWr;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RecvCallCacheTest {

    private final List<FakeCalls.PostRecv> built = new ArrayList<>();
    private final RecvCallCache cache = new RecvCallCache(list -> {
        FakeCalls.PostRecv c = new FakeCalls.PostRecv(list);
        built.add(c);
        return c;
    }, 2);

    private static RecvWr[] ring(long base, int n) {
        RecvWr[] r = new RecvWr[n];
        for (int i = 0; i < n; i++) {
            r[i] = new RecvWr().wrId(100 + i);
            r[i].setSge(base + i * 4096L, 4096, 9);
        }
        return r;
    }

    @Test
    void receivesMapToDisniWithTheQueuePairToken() {
        RecvWr two = new RecvWr(2).wrId(5);
        two.addSge(0x1000, 10, 1);
        two.addSge(0x2000, 20, 2);
        List<IbvRecvWR> ibv = RecvCallCache.toIbv(new RecvWr[]{two, new RecvWr().wrId(6)}, 0, 2, 777L);
        assertThat(ibv.get(0).getWr_id()).isEqualTo(777L);
        assertThat(ibv.get(0).getNum_sge()).isEqualTo(2);
        assertThat(ibv.get(0).getSg_list().get(1).getAddr()).isEqualTo(0x2000);
        assertThat(ibv.get(0).getSg_list().get(1).getLength()).isEqualTo(20);
        assertThat(ibv.get(0).getSg_list().get(1).getLkey()).isEqualTo(2);
        assertThat(ibv.get(1).getNum_sge()).isZero();
        assertThat(ibv.get(1).getWr_id()).isEqualTo(777L);
    }

    @Test
    void repostingTheSameBuffersHitsWhateverTheCallersWrIds() throws Exception {
        RecvWr[] first = ring(0x10000, 16);
        RecvWr[] second = ring(0x10000 + 16 * 4096, 16);
        cache.post(first, 0, 16, 1);
        cache.post(second, 0, 16, 1);
        for (RecvWr w : first) {
            w.wrId(w.wrId() + 1000);
        }
        cache.post(first, 0, 16, 1);
        cache.post(second, 0, 16, 1);
        assertThat(built).hasSize(2);
        assertThat(built.get(0).executions).isEqualTo(2);
        assertThat(cache.hits()).isEqualTo(2);
    }

    @Test
    void newBuffersMissAndEvictTheOldest() throws Exception {
        cache.post(ring(0x10000, 4), 0, 4, 1);
        cache.post(ring(0x20000, 4), 0, 4, 1);
        cache.post(ring(0x10000, 4), 0, 4, 1);
        cache.post(ring(0x30000, 4), 0, 4, 1);
        assertThat(built).hasSize(3);
        assertThat(built.get(1).freed).isTrue();
        assertThat(built.get(0).freed).isFalse();
        RecvWr[] changedLength = ring(0x10000, 4);
        changedLength[3].setSge(0x10000 + 3 * 4096L, 100, 9);
        cache.post(changedLength, 0, 4, 1);
        assertThat(built).as("any SGE difference is a different call").hasSize(4);
    }
}
