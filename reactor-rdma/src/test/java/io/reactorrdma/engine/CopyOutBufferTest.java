package io.reactorrdma.engine;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The buffer of the next small message: made ready as large as the last one, taken when it fits, given back on release. */
class CopyOutBufferTest {

    @Test
    void theBufferMadeReadyIsTheLastMessagesSizeAndTheNextOneThatFitsTakesIt() {
        Recording alloc = new Recording();
        CopyOutBuffer copies = new CopyOutBuffer(alloc);
        copies.prepare();
        assertThat(copies.isReady()).as("nothing to size a buffer by before the first message").isFalse();

        ByteBuf first = copies.take(64);
        assertThat(copies.allocatedOnArrival()).isEqualTo(1);
        copies.prepare();
        assertThat(copies.isReady()).isTrue();
        ByteBuf ready = alloc.made.get(1);
        assertThat(ready.capacity()).isEqualTo(64);

        ByteBuf second = copies.take(40);
        assertThat(second).isSameAs(ready);
        assertThat(copies.allocatedOnArrival()).as("the second message took the buffer made ready").isEqualTo(1);
        copies.prepare();
        assertThat(alloc.made.get(2).capacity()).as("sized as the last message").isEqualTo(40);
        first.release();
        second.release();
        copies.release();
        assertThat(alloc.made).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    @Test
    void aMessageLargerThanTheReadyBufferGetsItsOwnAndTheReadyOneGoesBack() {
        Recording alloc = new Recording();
        CopyOutBuffer copies = new CopyOutBuffer(alloc);
        copies.take(16).release();
        copies.prepare();
        ByteBuf small = alloc.made.get(1);

        ByteBuf large = copies.take(512);
        assertThat(large.capacity()).isEqualTo(512);
        assertThat(small.refCnt()).as("the ready buffer that was too small").isZero();
        assertThat(copies.isReady()).isFalse();
        assertThat(copies.allocatedOnArrival()).isEqualTo(2);
        copies.prepare();
        assertThat(alloc.made.get(alloc.made.size() - 1).capacity()).isEqualTo(512);
        large.release();
        copies.release();
        assertThat(alloc.made).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    @Test
    void releaseGivesBackTheReadyBufferAndNothingIsMadeReadyAfter() {
        Recording alloc = new Recording();
        CopyOutBuffer copies = new CopyOutBuffer(alloc);
        copies.take(64).release();
        copies.prepare();
        copies.release();
        assertThat(copies.isReady()).isFalse();
        copies.prepare();
        assertThat(copies.isReady()).isFalse();
        assertThat(alloc.made).hasSize(2).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    @Test
    void aPoolThatRefusesLeavesTheNextMessageToAllocateOnItsWay() {
        Recording alloc = new Recording();
        CopyOutBuffer copies = new CopyOutBuffer(alloc);
        copies.take(64).release();
        alloc.refuse = true;
        copies.prepare();
        assertThat(copies.isReady()).isFalse();
        alloc.refuse = false;
        copies.prepare();
        assertThat(copies.isReady()).as("not tried again every turn").isFalse();
        ByteBuf next = copies.take(64);
        assertThat(copies.allocatedOnArrival()).isEqualTo(2);
        next.release();
        copies.prepare();
        assertThat(copies.isReady()).as("sized again by the message that allocated").isTrue();
        copies.release();
    }

    /** Unpooled direct buffers, each one kept to check its release; refuses while {@link #refuse}. */
    private static final class Recording extends AbstractByteBufAllocator {
        final List<ByteBuf> made = new ArrayList<>();
        boolean refuse;

        Recording() {
            super(true);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            if (refuse) {
                throw new IllegalStateException("pool exhausted (test)");
            }
            ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
            made.add(b);
            return b;
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            throw new UnsupportedOperationException("direct buffers only");
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }
}
