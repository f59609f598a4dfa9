package io.reactorrdma.engine;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkRequestChainTest {

    @Test
    void segmentsMoveFromFreeToPendingToInFlightAndBack() {
        List<Object> released = new ArrayList<>();
        WorkRequestChain chain = new WorkRequestChain(8, 1);
        assertThat(chain.free()).isEqualTo(8);
        for (int i = 0; i < 5; i++) {
            chain.prepare("m" + i, 10);
        }
        assertThat(chain.pending()).isEqualTo(5);
        assertThat(chain.free()).isEqualTo(3);
        assertThatThrownBy(() -> chain.retire(0, (a, b, ok) -> released.add(a))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aBatchIsOneDoorbellWithOnlyItsLastRequestSignaledAndRetiresEverySlotBeforeIt() {
        try (SoftContext a = SoftContext.openLoopback(SoftConfig.defaults());
             SoftContext b = SoftContext.openLoopback(SoftConfig.defaults());
             VerbsFixture f = new VerbsFixture(a, b, cq -> QpAttributes.create(cq).withMaxSendWr(8).withMaxRecvWr(64))) {
            RecvWr r = new RecvWr();
            for (int i = 0; i < 64; i++) {
                r.wrId(i).setSge(f.mrB, i * 64L, 64);
                f.qpB.postRecv(new RecvWr[]{r}, 0, 1);
            }
            WorkRequestChain chain = new WorkRequestChain(8, 1);
            List<Object> released = new ArrayList<>();
            WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
            for (int round = 0; round < 6; round++) {
                for (int i = 0; i < 5; i++) {
                    SendWr wr = chain.prepare("r" + round + "m" + i, 8);
                    wr.opcode(WrOpcode.SEND).setSge(f.mrA, 0, 8);
                }
                assertThat(chain.post(f.qpA)).isEqualTo(5);
                assertThat(chain.inFlight()).isEqualTo(5);
                List<WorkCompletion> done = f.await(f.cqA, 1);
                assertThat(f.drainFor(f.cqA, 20)).as("only the batch's last request is signaled").isEmpty();
                assertThat(chain.retire(done.get(0).wrId(), (att, bytes, ok) -> released.add(att))).isEqualTo(5);
                assertThat(chain.free()).isEqualTo(8);
                assertThat(f.await(f.cqB, 5)).allMatch(WorkCompletion::isSuccess);
            }
            assertThat(chain.doorbells()).isEqualTo(6);
            assertThat(chain.postedRequests()).isEqualTo(30);
            assertThat(chain.signaledRequests()).isEqualTo(6);
            assertThat(released).hasSize(30).startsWith("r0m0", "r0m1").endsWith("r5m4");
            MemoryRegion unused = f.mrA;
            assertThat(unused.access() & AccessFlags.LOCAL_WRITE).isNotZero();
        }
    }

    @Test
    void longBatchesAreSignaledOftenEnoughToBeRetired() {
        WorkRequestChain chain = new WorkRequestChain(16, 1);
        for (int i = 0; i < 16; i++) {
            chain.prepare(i, 1);
        }
        List<SendWr> signaled = new ArrayList<>();
        chain.post(new io.reactorrdma.verbs.QueuePair() {
            @Override
            public int qpNum() {
                return 1;
            }

            @Override
            public io.reactorrdma.verbs.QpState state() {
                return io.reactorrdma.verbs.QpState.RTS;
            }

            @Override
            public QpAttributes attributes() {
                return null;
            }

            @Override
            public void postSend(SendWr[] wrs, int from, int count) {
                for (int i = from; i < from + count; i++) {
                    if (wrs[i].signaled()) {
                        signaled.add(wrs[i]);
                    }
                }
            }

            @Override
            public void postRecv(RecvWr[] wrs, int from, int count) { }

            @Override
            public int freeSendSlots() {
                return 16;
            }

            @Override
            public int freeRecvSlots() {
                return 16;
            }

            @Override
            public String errorCause() {
                return null;
            }

            @Override
            public void close() { }
        });
        assertThat(signaled).as("a batch filling the chain: one before the run reaches the depth, and the last")
                .extracting(SendWr::wrId).containsExactly(14L, 15L);
    }

    @Test
    void abandoningReleasesEverythingAsFailed() {
        WorkRequestChain chain = new WorkRequestChain(4, 1);
        chain.prepare("a", 1);
        chain.prepare("b", 2);
        List<String> seen = new ArrayList<>();
        assertThat(chain.abandonAll((a, bytes, ok) -> seen.add(a + ":" + bytes + ":" + ok))).isEqualTo(2);
        assertThat(seen).containsExactly("a:1:false", "b:2:false");
        assertThat(chain.free()).isEqualTo(4);
    }

    @Test
    void abandoningThePendingKeepsTheInFlightForTheirCompletions() {
        WorkRequestChain chain = new WorkRequestChain(4, 1);
        chain.prepare("posted", 1);
        chain.post(new io.reactorrdma.verbs.QueuePair() {
            @Override
            public int qpNum() {
                return 1;
            }

            @Override
            public io.reactorrdma.verbs.QpState state() {
                return io.reactorrdma.verbs.QpState.RTS;
            }

            @Override
            public QpAttributes attributes() {
                return null;
            }

            @Override
            public void postSend(SendWr[] wrs, int from, int count) { }

            @Override
            public void postRecv(RecvWr[] wrs, int from, int count) { }

            @Override
            public int freeSendSlots() {
                return 4;
            }

            @Override
            public int freeRecvSlots() {
                return 4;
            }

            @Override
            public String errorCause() {
                return null;
            }

            @Override
            public void close() { }
        });
        chain.prepare("p1", 2);
        chain.prepare("p2", 3);
        List<String> seen = new ArrayList<>();
        assertThat(chain.abandonPending((a, bytes, ok) -> seen.add(a + ":" + bytes + ":" + ok))).isEqualTo(2);
        assertThat(seen).containsExactlyInAnyOrder("p1:2:false", "p2:3:false");
        assertThat(chain.inFlight()).isEqualTo(1);
        assertThat(chain.isInFlight(0)).isTrue();
        assertThat(chain.isInFlight(1)).isFalse();
        seen.clear();
        chain.retire(0, (a, bytes, ok) -> seen.add(a + ":" + bytes));
        assertThat(seen).containsExactly("posted:1");
        assertThat(chain.free()).isEqualTo(4);
    }
}
