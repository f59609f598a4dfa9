package io.reactorrdma.examples.ps.demo.measure;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Matching thread names as Linux shows them: cut to 15 bytes. */
class ThreadNamesTest {

    @Test
    void commIsTheNameCutTo15Characters() {
        assertThat(ThreadNames.comm("reactor-tcp-epoll-12")).isEqualTo("reactor-tcp-epo");
        assertThat(ThreadNames.comm("shard-0-io-0")).isEqualTo("shard-0-io-0");
        assertThat(ThreadNames.comm("123456789012345")).isEqualTo("123456789012345");
    }

    @Test
    void aLongPrefixMatchesTheTruncatedCommsOfItsThreads() {
        ThreadNames tcp = ThreadNames.startingWith(List.of("reactor-tcp-epoll-", "reactor-tcp-nio-"));
        assertThat(tcp.test(ThreadNames.comm("reactor-tcp-epoll-1"))).isTrue();
        assertThat(tcp.test(ThreadNames.comm("reactor-tcp-epoll-12"))).isTrue();
        assertThat(tcp.test(ThreadNames.comm("reactor-tcp-nio-3"))).isTrue();
        assertThat(tcp.test("reactor-tcp-ep")).isFalse(); // shorter than the cut prefix
        assertThat(tcp.test("reactor-http-ni")).isFalse();
        assertThat(tcp.test("parallel-1")).isFalse();
    }

    @Test
    void shortPrefixesCompareWhole() {
        ThreadNames shard1 = ThreadNames.startingWith("shard-1-io-");
        assertThat(shard1.test("shard-1-io-0")).isTrue();
        assertThat(shard1.test("shard-1-io-12")).isTrue();
        assertThat(shard1.test("shard-10-io-0")).isFalse();
        assertThat(shard1.test("shard-1-connect")).isFalse();
        assertThat(shard1.test("C1 CompilerThre")).isFalse();
    }

    @Test
    void anEmptyPrefixWouldMatchEverythingAndIsRefused() {
        assertThatThrownBy(() -> ThreadNames.startingWith("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ThreadNames.startingWith(List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
