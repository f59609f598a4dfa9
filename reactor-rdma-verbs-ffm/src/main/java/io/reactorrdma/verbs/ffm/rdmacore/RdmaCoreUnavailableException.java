package io.reactorrdma.verbs.ffm.rdmacore;

/**
 * rdma-core cannot be used on this host: its library is missing, the kernel has no RDMA support, or there is
 * no device. The message says which, and what to do.
 */
public final class RdmaCoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RdmaCoreUnavailableException(String message) {
        super(message);
    }

    public RdmaCoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
