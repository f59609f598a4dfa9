package io.reactorrdma.verbs.disni.calls;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The two arm calls of a DiSNI completion queue, with DiSNI 2.1's real NatReqNotifyCall (JNI replaced by a counter). */
class NotifyCallsTest {

    private final List<NativeCalls.SilentReqNotify> built = new ArrayList<>();
    private final List<Boolean> builtFor = new ArrayList<>();

    private NotifyCalls calls() throws Exception {
        return new NotifyCalls(solicitedOnly -> {
            NativeCalls.SilentReqNotify c = new NativeCalls.SilentReqNotify(solicitedOnly);
            built.add(c);
            builtFor.add(solicitedOnly);
            return c;
        });
    }

    private NativeCalls.SilentReqNotify callFor(boolean solicitedOnly) {
        return built.get(builtFor.indexOf(solicitedOnly));
    }

    @Test
    void eachArmKindExecutesTheCallBuiltWithItsSolicitedOnlyArgument() throws Exception {
        NotifyCalls calls = calls();
        assertThat(built).hasSize(2);
        assertThat(callFor(false).solicitedOnlyArgument()).as("ibv_req_notify_cq(cq, 0)").isZero();
        assertThat(callFor(true).solicitedOnlyArgument()).as("ibv_req_notify_cq(cq, 1)").isEqualTo(1);
        calls.arm(true);
        calls.arm(true);
        calls.arm(false);
        assertThat(callFor(true).executions).isEqualTo(2);
        assertThat(callFor(false).executions).isEqualTo(1);
        calls.free();
        assertThat(built).allMatch(c -> !c.isValid());
    }

    @Test
    void armingBuildsNothingAndAllocatesNothing() throws Exception {
        NotifyCalls calls = calls();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        for (int i = 0; i < 10_000; i++) {
            calls.arm((i & 1) == 0); // warm-up
        }
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 100_000; i++) {
            calls.arm((i & 1) == 0);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(built).as("built once each").hasSize(2);
        assertThat(allocated).as("bytes allocated by 100,000 arms").isLessThan(4096);
        calls.free();
    }
}
