package io.reactorrdma.memory;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ResourceLeakDetector;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RegisteredByteBufAllocatorTest {

    private VerbsContext ctx;
    private RegisteredAllocator allocator;
    private RegisteredByteBufAllocator alloc;

    @BeforeEach
    void open() {
        ctx = SoftContext.openLoopback(SoftConfig.defaults());
        allocator = new RegisteredAllocator(ctx.allocPd());
        alloc = allocator.byteBufAllocator();
    }

    @AfterEach
    void close() {
        assertThat(allocator.liveBuffers()).as("live registered buffers after the test").isZero();
        assertThat(allocator.closeAndReport()).isZero();
        ctx.close();
    }

    @Test
    void directBuffersLiveInRegisteredMemoryAndExposeTheirRegion() {
        ByteBuf buf = alloc.buffer(300);
        assertThat(buf.isDirect()).isTrue();
        assertThat(buf.capacity()).isEqualTo(300);
        Chunk chunk = RegisteredByteBufAllocator.regionOf(buf);
        assertThat(chunk).isNotNull();
        assertThat(chunk.region().access()).isEqualTo(AccessFlags.LOCAL_WRITE);
        buf.writeBytes("hello registered world".getBytes(StandardCharsets.US_ASCII));
        assertThat(RegisteredByteBufAllocator.addressOf(buf)).isEqualTo(chunk.address());
        buf.readerIndex(6);
        assertThat(RegisteredByteBufAllocator.addressOf(buf)).isEqualTo(chunk.address() + 6);
        ByteBuf slice = buf.slice(8, 5);
        assertThat(RegisteredByteBufAllocator.regionOf(slice)).isSameAs(chunk);
        assertThat(RegisteredByteBufAllocator.addressOf(slice)).isEqualTo(chunk.address() + 8);
        assertThat(chunk.buffer().get(6)).as("the chunk's memory is the buffer's").isEqualTo((byte) 'r');
        assertThat(allocator.local().statistics().liveBuffers()).isEqualTo(1);
        assertThat(buf.release()).isTrue();
        assertThat(allocator.local().statistics().liveBuffers()).isZero();
    }

    @Test
    void leakDetectionWrapsEveryBufferAtTheConfiguredLevel() {
        ByteBuf buf = alloc.directBuffer(64);
        if (ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID) {
            assertThat(buf.getClass().getSimpleName()).contains("LeakAware");
        }
        buf.release();
    }

    @Test
    void growingMovesToNewRegisteredMemoryAndFreesTheOld() {
        ByteBuf buf = alloc.buffer(16);
        byte[] data = new byte[200_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 13);
        }
        buf.writeBytes(data, 0, 10);
        buf.writeBytes(data, 10, 1000);       // first growth: Netty does not free the buffer it was given
        buf.writeBytes(data, 1010, 198_990);  // further growth: Netty frees through Chunk.clean
        assertThat(buf.readableBytes()).isEqualTo(200_000);
        byte[] back = new byte[200_000];
        buf.getBytes(0, back);
        assertThat(back).isEqualTo(data);
        assertThat(RegisteredByteBufAllocator.regionOf(buf)).isNotNull();
        assertThat(allocator.local().statistics().liveBuffers()).as("only the current memory is live").isEqualTo(1);
        buf.capacity(1000);
        assertThat(allocator.local().statistics().liveBuffers()).isEqualTo(1);
        buf.release();
    }

    @Test
    void releasingTwiceIsAClearError() {
        ByteBuf buf = alloc.buffer(10);
        buf.release();
        assertThatThrownBy(buf::release).isInstanceOf(IllegalReferenceCountException.class);
    }

    @Test
    void heapBuffersAreOrdinaryAndNotRegistered() {
        ByteBuf heap = alloc.heapBuffer(100);
        assertThat(heap.isDirect()).isFalse();
        assertThat(RegisteredByteBufAllocator.regionOf(heap)).isNull();
        assertThat(RegisteredByteBufAllocator.addressOf(heap)).isEqualTo(-1);
        assertThat(alloc.isDirectBufferPooled()).isTrue();
        heap.release();
    }

    @Test
    void emptyAndLargeBuffers() {
        ByteBuf empty = alloc.buffer(0);
        assertThat(empty.capacity()).isZero();
        ByteBuf large = alloc.directBuffer(3 << 20);
        ByteBuf huge = alloc.directBuffer(6 << 20);
        large.setByte((3 << 20) - 1, 7);
        huge.setByte((6 << 20) - 1, 9);
        assertThat(RegisteredByteBufAllocator.regionOf(huge).region().length()).isEqualTo(6 << 20);
        empty.release();
        large.release();
        huge.release();
    }

    @Test
    void remoteWritableMemoryIsASeparatePool() {
        Chunk dest = allocator.remoteWritable().allocate(4096);
        assertThat(dest.region().access()).isEqualTo(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        ByteBuf send = alloc.buffer(4096);
        assertThat(RegisteredByteBufAllocator.regionOf(send).region().access() & AccessFlags.REMOTE_WRITE)
                .as("send buffers never in remote-writable regions").isZero();
        send.release();
        allocator.remoteWritable().free(dest);
    }

    @Test
    void metersReportThePools() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new AllocatorMetrics(allocator).bindTo(registry);
        ByteBuf buf = alloc.buffer(1000);
        assertThat(registry.get("rdma.memory.live.buffers").tag("pool", "local").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("rdma.memory.live.bytes").tag("pool", "local").gauge().value()).isEqualTo(1000.0);
        assertThat(registry.get("rdma.memory.registered.bytes").tag("pool", "local").gauge().value()).isEqualTo(4.0 * 1024 * 1024);
        assertThat(registry.get("rdma.memory.registrations").tag("pool", "local").functionCounter().count()).isEqualTo(1.0);
        assertThat(registry.get("rdma.memory.blocks").tag("pool", "remote-writable").gauge().value()).isZero();
        buf.release();
        assertThat(registry.get("rdma.memory.live.buffers").tag("pool", "local").gauge().value()).isZero();
    }
}
