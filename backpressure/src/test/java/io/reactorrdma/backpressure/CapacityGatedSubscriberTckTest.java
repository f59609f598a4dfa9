package io.reactorrdma.backpressure;

import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberBlackboxVerification;
import org.reactivestreams.tck.TestEnvironment;

/**
 * The Reactive Streams TCK's subscriber rules for {@link CapacityGatedSubscriber} (TestNG, run by
 * the JUnit Platform's testng-engine). The subscriber asks for demand itself, from its capacity,
 * so the black-box verification applies. Signals must come within 5 s (a busy machine), the
 * checks that nothing comes wait 100 ms.
 */
public class CapacityGatedSubscriberTckTest extends SubscriberBlackboxVerification<Integer> {

    public CapacityGatedSubscriberTckTest() {
        super(new TestEnvironment(5_000, 100, 5_000));
    }

    @Override
    public Subscriber<Integer> createSubscriber() {
        return new CapacityGatedSubscriber<>(() -> 8, item -> {
            // the sink takes items at once: the capacity stays 8
        });
    }

    @Override
    public Integer createElement(int element) {
        return element;
    }
}
