package io.reactorrdma.verbs.ffm.rdmacore.cm;

import io.reactorrdma.verbs.ffm.rdmacore.Libibverbs;
import io.reactorrdma.verbs.ffm.rdmacore.QpCapacities;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCompletionChannel;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCoreUnavailableException;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCq;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaDevice;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaMr;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaPd;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaQp;
import io.reactorrdma.verbs.ffm.rdmacore.RecvWrChain;
import io.reactorrdma.verbs.ffm.rdmacore.SendWrChain;
import io.reactorrdma.verbs.ffm.rdmacore.WorkCompletions;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_QPS_ERR;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_QPS_RTS;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_SEND_SIGNALED;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_RECV;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WR_SEND;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.RDMA_CM_EVENT_DISCONNECTED;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.RDMA_CM_EVENT_ESTABLISHED;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.RDMA_CM_EVENT_REJECTED;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.RDMA_CM_EVENT_UNREACHABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The connection manager through FFM on the emulated rdma-core: a client and a server in this process connect with
 * private data both ways, move a message over the queue pairs the CM connected, and disconnect; a rejected request
 * carries the server's private data back; a port nobody listens on is unreachable; a port taken cannot be bound.
 */
class ConnectionManagerTest {

    private static final QpCapacities CAPS = new QpCapacities(16, 16, 1, 1, 0);

    @TempDir
    Path dir;

    private Arena arena;
    private Librdmacm cm;
    private CmEventChannel serverEvents;
    private CmEventChannel clientEvents;
    private CmId listener;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void listen() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        arena = Arena.ofShared();
        cm = Librdmacm.open(Optional.of(so), Libibverbs.open(Optional.of(so), arena), arena);
        serverEvents = cm.createEventChannel();
        clientEvents = cm.createEventChannel();
        listener = CmId.create(serverEvents);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.listen(8);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        listener.close();
        serverEvents.close();
        clientEvents.close();
        arena.close();
    }

    @Test
    void aClientAndAServerConnectWithPrivateDataBothWaysAndTalkOverTheirQueuePairs() {
        assertThat(listener.localAddress().getPort()).isPositive();
        CmId client = own(CmId.create(clientEvents));
        RdmaQp clientQp = resolveAndCreateQp(client);
        client.connect(bytes("hello"), 4, 4);

        CmEvent request = serverEvents.awaitEvent();
        assertThat(request.typeName()).isEqualTo("RDMA_CM_EVENT_CONNECT_REQUEST");
        assertThat(request.type()).isEqualTo(RDMA_CM_EVENT_CONNECT_REQUEST);
        assertThat(request.listenId()).isEqualTo(listener.address());
        assertThat(new String(request.privateData(), StandardCharsets.UTF_8)).isEqualTo("hello");
        CmId server = own(CmId.ofRequest(serverEvents, request));
        assertThat(server.remoteAddress()).isEqualTo(client.localAddress());
        Queues serverQueues = queues(server.device());
        RdmaQp serverQp = own(server.createQp(serverQueues.pd, serverQueues.cq, serverQueues.cq, CAPS));
        server.accept(bytes("welcome"), 4, 4);

        CmEvent established = clientEvents.awaitEvent();
        assertThat(established.type()).isEqualTo(RDMA_CM_EVENT_ESTABLISHED);
        assertThat(new String(established.privateData(), StandardCharsets.UTF_8)).isEqualTo("welcome");
        assertThat(serverEvents.awaitEvent().type()).isEqualTo(RDMA_CM_EVENT_ESTABLISHED);
        assertThat(clientQp.state()).isEqualTo(IBV_QPS_RTS);
        assertThat(serverQp.state()).isEqualTo(IBV_QPS_RTS);

        // a message over the connected queue pairs
        MemorySegment memory = arena.allocate(8192, 4096);
        RdmaMr serverMr = own(serverQueues.pd.register(memory.asSlice(4096), IBV_ACCESS_LOCAL_WRITE));
        RecvWrChain recv = own(new RecvWrChain(1));
        serverQp.postRecv(recv.receive(0, 77, serverMr.address(), 4096, serverMr.lkey()), 1);
        Queues clientQueues = queuesOf(clientQp);
        RdmaMr clientMr = own(clientQueues.pd.register(memory.asSlice(0, 4096), IBV_ACCESS_LOCAL_WRITE));
        memory.setString(0, "over the wire");
        SendWrChain send = own(new SendWrChain(1, 1));
        clientQp.postSend(send.request(0, 1, IBV_WR_SEND, IBV_SEND_SIGNALED).sge(0, clientMr.address(), 64, clientMr.lkey()), 1);
        MemorySegment wcs = RdmaCq.completions(arena, 4);
        assertThat(serverQueues.cq.poll(wcs, 4)).isEqualTo(1);
        assertThat(WorkCompletions.opcode(wcs, 0)).isEqualTo(IBV_WC_RECV);
        assertThat(memory.getString(4096)).isEqualTo("over the wire");

        client.disconnect();
        assertThat(clientEvents.awaitEvent().type()).isEqualTo(RDMA_CM_EVENT_DISCONNECTED);
        assertThat(serverEvents.awaitEvent().type()).isEqualTo(RDMA_CM_EVENT_DISCONNECTED);
        assertThat(clientQp.state()).isEqualTo(IBV_QPS_ERR);
        assertThat(serverQp.state()).isEqualTo(IBV_QPS_ERR);
    }

    @Test
    void aRejectedRequestCarriesTheServersPrivateDataBack() {
        CmId client = own(CmId.create(clientEvents));
        resolveAndCreateQp(client);
        client.connect(bytes("let me in"), 1, 1);
        CmEvent request = serverEvents.awaitEvent();
        CmId server = own(CmId.ofRequest(serverEvents, request));
        server.reject(bytes("full"));
        CmEvent rejected = clientEvents.awaitEvent();
        assertThat(rejected.type()).isEqualTo(RDMA_CM_EVENT_REJECTED);
        assertThat(new String(rejected.privateData(), StandardCharsets.UTF_8)).isEqualTo("full");
    }

    @Test
    void aPortNobodyListensOnIsUnreachable() {
        CmId client = own(CmId.create(clientEvents));
        client.resolveAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.localAddress().getPort() + 1), 1000);
        assertThat(clientEvents.awaitEvent().type()).isEqualTo(RDMA_CM_EVENT_ADDR_RESOLVED);
        client.resolveRoute(1000);
        assertThat(clientEvents.awaitEvent().type()).isEqualTo(RDMA_CM_EVENT_ROUTE_RESOLVED);
        Queues q = queues(client.device());
        own(client.createQp(q.pd, q.cq, q.cq, CAPS));
        client.connect(new byte[0], 1, 1);
        assertThat(clientEvents.awaitEvent().type()).isEqualTo(RDMA_CM_EVENT_UNREACHABLE);
    }

    @Test
    void privateDataOverWhatTheCmCarriesIsRefusedBeforeAnythingIsSent() {
        CmId client = own(CmId.create(clientEvents));
        resolveAndCreateQp(client);
        assertThatThrownBy(() -> client.connect(new byte[CmId.MAX_CONNECT_PRIVATE_DATA + 1], 1, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 56 bytes");
        client.connect(new byte[CmId.MAX_CONNECT_PRIVATE_DATA], 1, 1);
        CmEvent request = serverEvents.awaitEvent();
        assertThat(request.privateData()).hasSize(CmId.MAX_CONNECT_PRIVATE_DATA);
        CmId server = own(CmId.ofRequest(serverEvents, request));
        assertThatThrownBy(() -> server.reject(new byte[CmId.MAX_REJECT_PRIVATE_DATA + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 148 bytes");
    }

    @Test
    void aPortTakenCannotBeBoundAndSaysWhy() {
        CmId second = own(CmId.create(serverEvents));
        assertThatThrownBy(() -> second.bind(listener.localAddress())).isInstanceOf(RdmaCoreUnavailableException.class)
                .hasMessageContaining("rdma_bind_addr").hasMessageContaining("errno 98").hasMessageContaining("port is taken");
    }

    private RdmaQp resolveAndCreateQp(CmId client) {
        client.resolveAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.localAddress().getPort()), 1000);
        assertThat(clientEvents.awaitEvent().type()).isEqualTo(RDMA_CM_EVENT_ADDR_RESOLVED);
        client.resolveRoute(1000);
        assertThat(clientEvents.awaitEvent().type()).isEqualTo(RDMA_CM_EVENT_ROUTE_RESOLVED);
        Queues q = queues(client.device());
        RdmaQp qp = own(client.createQp(q.pd, q.cq, q.cq, CAPS));
        queuesByQp.add(new Object[]{qp, q});
        return qp;
    }

    private final List<Object[]> queuesByQp = new ArrayList<>();

    private Queues queuesOf(RdmaQp qp) {
        for (Object[] e : queuesByQp) {
            if (e[0] == qp) {
                return (Queues) e[1];
            }
        }
        throw new AssertionError("no queues for " + qp);
    }

    private record Queues(RdmaPd pd, RdmaCompletionChannel channel, RdmaCq cq) {
    }

    private Queues queues(RdmaDevice device) {
        RdmaPd pd = own(device.allocatePd());
        RdmaCompletionChannel channel = own(device.createCompletionChannel());
        RdmaCq cq = own(device.createCq(64, channel));
        return new Queues(pd, channel, cq);
    }

    private <T extends AutoCloseable> T own(T resource) {
        toClose.add(resource);
        return resource;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
