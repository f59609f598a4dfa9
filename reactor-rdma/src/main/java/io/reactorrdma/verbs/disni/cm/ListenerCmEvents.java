package io.reactorrdma.verbs.disni.cm;

import com.ibm.disni.verbs.RdmaCmId;

import java.util.function.Consumer;

/**
 * The CM events of a listening id, on the CM thread. Only {@code CONNECT_REQUEST} carries a new
 * id (the request); the listen id's own events arrive with the listen id as their id:
 * {@code ADDR_CHANGE} (its address moved to another port or device, e.g. a bond failing over)
 * leaves the listener as it is — rdma_cm keeps it listening, and the side channel keeps answering
 * — and {@code DEVICE_REMOVAL} means the whole device is gone.
 */
public final class ListenerCmEvents implements CmEventLoop.Handler {

    private final Consumer<RdmaCmId> onConnectRequest;
    private final Consumer<String> onDeviceRemoval;

    public ListenerCmEvents(Consumer<RdmaCmId> onConnectRequest, Consumer<String> onDeviceRemoval) {
        this.onConnectRequest = onConnectRequest;
        this.onDeviceRemoval = onDeviceRemoval;
    }

    @Override
    public void onEvent(int event, RdmaCmId connId) {
        if (event == CmEvents.CONNECT_REQUEST) {
            onConnectRequest.accept(connId);
        } else if (event == CmEvents.DEVICE_REMOVAL) {
            onDeviceRemoval.accept("a listening id");
        }
        // ADDR_CHANGE and anything else: the listen id stays as it is
    }
}
