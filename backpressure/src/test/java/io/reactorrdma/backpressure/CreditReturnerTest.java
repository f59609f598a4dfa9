package io.reactorrdma.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class CreditReturnerTest {

    @Test
    void batchIsHalfTheDepth() {
        assertThat(new CreditReturner(32).batchSize()).isEqualTo(16);
        assertThat(new CreditReturner(7).batchSize()).isEqualTo(3);
        assertThat(new CreditReturner(1).batchSize()).isEqualTo(1);
        CreditReturner r = new CreditReturner(16, 5);
        assertThat(r.depth()).isEqualTo(16);
        assertThat(r.batchSize()).isEqualTo(5);
        assertThat(r.freed()).isZero();
        assertThat(r.outstandingDemand()).isZero();
    }

    @Test
    void rejectsBadConstruction() {
        assertThatThrownBy(() -> new CreditReturner(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("depth");
        assertThatThrownBy(() -> new CreditReturner(CreditReturner.MAX_DEPTH + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CreditReturner(8, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batchSize");
        assertThatThrownBy(() -> new CreditReturner(8, 9)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new CreditReturner(CreditReturner.MAX_DEPTH).batchSize()).isEqualTo(CreditReturner.MAX_DEPTH / 2);
    }

    @Test
    void noCreditsGoBackWithoutDemand() {
        CreditReturner r = new CreditReturner(8);
        r.received(8);
        assertThat(r.freed()).isEqualTo(8);
        assertThat(r.returnable()).isZero();
        assertThat(r.creditMessageDue()).isFalse();
        assertThat(r.takeCredits()).isZero();
        assertThat(r.takeCredits(1)).as("not even one, unbatched").isZero();
        assertThat(r.freed()).isEqualTo(8);
    }

    @Test
    void demandWithoutFreedReceivesReturnsNothing() {
        CreditReturner r = new CreditReturner(8);
        r.request(100);
        assertThat(r.returnable()).isZero();
        assertThat(r.takeCredits(1)).isZero();
        assertThat(r.outstandingDemand()).isEqualTo(100);
    }

    @Test
    void creditsGoBackInBatchesAgainstDemand() {
        CreditReturner r = new CreditReturner(8); // batch 4
        r.received(8);
        r.request(3);
        assertThat(r.returnable()).isEqualTo(3);
        assertThat(r.creditMessageDue()).isFalse();
        assertThat(r.takeCredits()).as("below the batch").isZero();
        r.request(1);
        assertThat(r.creditMessageDue()).isTrue();
        assertThat(r.takeCredits()).isEqualTo(4);
        assertThat(r.freed()).isEqualTo(4);
        assertThat(r.outstandingDemand()).isZero();
        assertThat(r.takeCredits()).as("taken once").isZero();
    }

    @Test
    void aBatchTakesEverythingReturnable() {
        CreditReturner r = new CreditReturner(8);
        r.received(7);
        r.request(100);
        assertThat(r.takeCredits()).isEqualTo(7);
        assertThat(r.outstandingDemand()).isEqualTo(93);
        assertThat(r.freed()).isZero();
    }

    @Test
    void piggybackBelowTheBatchWithAMinimum() {
        CreditReturner r = new CreditReturner(8);
        r.received(2);
        r.request(5);
        assertThat(r.takeCredits()).isZero();
        assertThat(r.takeCredits(1)).isEqualTo(2);
        assertThat(r.outstandingDemand()).isEqualTo(3);
        assertThatThrownBy(() -> r.takeCredits(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void controlReceivesNeedNoDemand() {
        CreditReturner r = new CreditReturner(8);
        r.received(3); // data, no demand: held
        r.receivedControl(3);
        assertThat(r.returnable()).isEqualTo(3);
        assertThat(r.takeCredits()).isZero();
        r.receivedControl();
        assertThat(r.takeCredits()).as("control credits only").isEqualTo(4);
        assertThat(r.freed()).as("the data receives still wait for demand").isEqualTo(3);
        r.request(3);
        assertThat(r.takeCredits(1)).isEqualTo(3);
        assertThat(r.freed()).isZero();
    }

    @Test
    void unboundedDemandIsNeverUsedUp() {
        CreditReturner r = new CreditReturner(4);
        r.request(Long.MAX_VALUE);
        assertThat(r.outstandingDemand()).isEqualTo(Long.MAX_VALUE);
        for (int i = 0; i < 10; i++) {
            r.received(4);
            assertThat(r.takeCredits()).isEqualTo(4);
        }
        assertThat(r.outstandingDemand()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void demandSaturatesAtUnbounded() {
        CreditReturner r = new CreditReturner(4);
        r.request(CreditReturner.UNBOUNDED_DEMAND - 2);
        assertThat(r.outstandingDemand()).isEqualTo(CreditReturner.UNBOUNDED_DEMAND - 2);
        r.request(5);
        assertThat(r.outstandingDemand()).isEqualTo(Long.MAX_VALUE);
        r.request(Long.MAX_VALUE);
        assertThat(r.outstandingDemand()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void badInputIsRejected() {
        CreditReturner r = new CreditReturner(4);
        assertThatThrownBy(() -> r.request(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3.9");
        assertThatThrownBy(() -> r.request(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.received(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
        assertThatThrownBy(() -> r.receivedControl(-1)).isInstanceOf(IllegalArgumentException.class);
        r.received(0);
        r.receivedControl(0);
        assertThat(r.freed()).isZero();
    }

    @Test
    void consumingMoreReceivesThanThePeerHadCreditsIsAProtocolError() {
        CreditReturner r = new CreditReturner(4);
        r.received(3);
        r.receivedControl();
        assertThatThrownBy(r::received)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("receive overrun")
                .hasMessageContaining("without a credit");
        assertThatThrownBy(() -> new CreditReturner(4).received(5)).isInstanceOf(IllegalStateException.class);
        assertThat(r.freed()).as("nothing changed").isEqualTo(4);
        r.request(3);
        assertThat(r.takeCredits()).isEqualTo(4);
        r.received(4); // fine again once returned
    }

    @Test
    void dueListenerRunsWhenABatchBecomesReturnable() {
        CreditReturner r = new CreditReturner(8);
        AtomicInteger due = new AtomicInteger();
        r.onCreditsDue(due::incrementAndGet);
        r.received(8);
        assertThat(due).as("no demand").hasValue(0);
        r.request(2);
        assertThat(due).hasValue(0);
        r.request(2);
        assertThat(due).as("the request made a batch").hasValue(1);
        r.request(2);
        assertThat(due).as("still due: no new crossing").hasValue(1);
        assertThat(r.takeCredits()).isEqualTo(6);
        r.received(4);
        assertThat(due).as("no demand left").hasValue(1);
        r.receivedControl(2);
        r.request(2);
        assertThat(due).as("2 control + 2 data").hasValue(2);
        r.onCreditsDue(null);
        r.takeCredits();
        r.receivedControl(4);
        assertThat(due).hasValue(2);
    }

    @Test
    void aConsumerRequestingOneAtATimeGetsCreditsReturnedInBatches() {
        int depth = 8;
        CreditReturner r = new CreditReturner(depth);
        int peerCredits = depth;
        int buffered = 0;
        int delivered = 0;
        List<Integer> returns = new ArrayList<>();
        while (delivered < 1000) {
            // The peer sends whenever it has a credit.
            while (peerCredits > 0) {
                peerCredits--;
                r.received();
                buffered++;
            }
            // The subscriber requests one and gets one.
            r.request(1);
            assertThat(buffered).isPositive();
            buffered--;
            delivered++;
            int c = r.takeCredits();
            if (c > 0) {
                returns.add(c);
                peerCredits += c;
            }
            assertThat(buffered).isLessThanOrEqualTo(depth);
        }
        assertThat(returns).isNotEmpty().allSatisfy(c -> assertThat(c).isEqualTo(depth / 2));
        assertThat(returns.size()).isEqualTo(1000 / (depth / 2));
    }

    @Test
    void describesItself() {
        CreditReturner r = new CreditReturner(8);
        r.received(2);
        r.receivedControl(1);
        assertThat(r).hasToString("CreditReturner[depth=8, batch=4, freedData=2, freedControl=1, demand=0]");
        r.request(Long.MAX_VALUE);
        assertThat(r.toString()).contains("demand=unbounded");
    }
}
