package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.disni.cm.CmEventLoop;
import io.reactorrdma.verbs.disni.cm.CmEvents;
import io.reactorrdma.verbs.disni.cm.ListenerCmEvents;
import io.reactorrdma.verbs.work.tracking.QpTable;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A listening id's own events are not connect requests: ADDR_CHANGE (the address moved, a bond
 * failed over) leaves the listener alone; DEVICE_REMOVAL tears the whole context down and fails
 * its queue pairs and connections with an error that says so.
 */
class DeviceEventsTest {

    @Test
    void addrChangeOnAListenIdIsNotAConnectRequest() {
        List<Object> requests = new ArrayList<>();
        List<String> removals = new ArrayList<>();
        ListenerCmEvents events = new ListenerCmEvents(requests::add, removals::add);
        events.onEvent(CmEvents.ADDR_CHANGE, null); // libdisni: connId = the listen id itself
        assertThat(requests).as("the listen id must not be handed to the accept path (which destroys it)").isEmpty();
        assertThat(removals).isEmpty();
        events.onEvent(CmEvents.CONNECT_REQUEST, null);
        assertThat(requests).hasSize(1);
    }

    @Test
    void deviceRemovalOnAListenIdTearsTheContextDown() {
        List<Object> requests = new ArrayList<>();
        List<String> removals = new ArrayList<>();
        new ListenerCmEvents(requests::add, removals::add).onEvent(CmEvents.DEVICE_REMOVAL, null);
        assertThat(requests).isEmpty();
        assertThat(removals).hasSize(1);
    }

    @Test
    void deviceRemovalFailsQueuePairsAndConnectionsWithAClearErrorAndClosesTheContext() throws Exception {
        CmEventLoop cm = new CmEventLoop(CmTeardownTest.IDLE, "test-cm");
        DisniContext ctx = new DisniContext(DisniConfig.defaults(), cm);
        QpTable table = new QpTable();
        DisniQueuePair qp = new DisniQueuePair(ctx, null, QpAttributes.create(CmTeardownTest.NO_CQ), null, null, table.add(32, 32));
        qp.established();
        DisniConnection c = new DisniConnection(ctx, qp, null, new InetSocketAddress(1), new InetSocketAddress(2),
                ByteBuffer.allocate(0));
        ctx.adopt(qp);
        ctx.adopt(c);
        DisniQueuePair idle = new DisniQueuePair(ctx, null, QpAttributes.create(CmTeardownTest.NO_CQ), null, null, table.add(32, 32));
        ctx.adopt(idle);

        cm.call("device removal", CmEventLoop.CALL_TIMEOUT, () -> {
            ctx.deviceRemoved("the context's cm id");
            return null;
        });

        assertThat(c.onDisconnect().get(30, TimeUnit.SECONDS)).contains("was removed");
        assertThat(qp.errorCause()).contains("was removed");
        assertThat(idle.errorCause()).contains("was removed");
        assertThat(qp.state()).isIn(QpState.ERROR, QpState.DESTROYED);
        assertThatThrownBy(ctx::allocPd).isInstanceOf(VerbsException.class).hasMessageContaining("was removed");
    }
}
