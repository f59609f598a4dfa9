package io.reactorrdma.verbs.work.tracking;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The tokens both hardware providers hand the NIC, and the table that finds a queue pair by one. */
class QpTableTest {

    @Test
    void tokensRoundTrip() {
        long s = WrTokens.send(WrTokens.MAX_QPS - 1, WrTokens.GENERATION_MASK, WrTokens.MAX_SLOTS - 1);
        assertThat(WrTokens.isSend(s)).isTrue();
        assertThat(WrTokens.qpIndex(s)).isEqualTo(WrTokens.MAX_QPS - 1);
        assertThat(WrTokens.generation(s)).isEqualTo(WrTokens.GENERATION_MASK);
        assertThat(WrTokens.slot(s)).isEqualTo(WrTokens.MAX_SLOTS - 1);
        long r = WrTokens.recv(5, 3);
        assertThat(WrTokens.isSend(r)).isFalse();
        assertThat(WrTokens.qpIndex(r)).isEqualTo(5);
        assertThat(WrTokens.generation(r)).isEqualTo(3);
    }

    @Test
    void aFreedIndexIsReusedWithTheNextGenerationSoOldTokensFindNothing() {
        QpTable table = new QpTable();
        QpRecord old = table.add(4, 4);
        long token = old.recvToken();
        assertThat(table.lookup(token)).isSameAs(old);
        table.remove(old);
        assertThat(table.lookup(token)).isNull();
        QpRecord reused = table.add(4, 4);
        assertThat(reused.index).isEqualTo(old.index);
        assertThat(reused.generation).isNotEqualTo(old.generation);
        assertThat(table.lookup(token)).isNull();
        assertThat(table.lookup(reused.recvToken())).isSameAs(reused);
    }
}
