package io.reactorrdma.config;

/**
 * The disni provider's tunables, each with its default and why. Immutable; from system properties
 * {@code reactor.rdma.disni.*} with {@link #fromSystemProperties()}; each {@code with…} returns a copy.
 *
 * @param address            IPv4 address of the RDMA interface to open ({@code reactor.rdma.disni.address});
 *                           null: the first IPv4 address of the first RDMA device's network interface.
 *                           DiSNI has no device list: a context is the device a cm id bound to this address resolves to
 * @param retryCount         transport retries before RETRY_EXC_ERR ({@code rdma_conn_param.retry_count}); DiSNI's
 *                           default is 0, which fails on the first lost packet, so 7 (the most)
 * @param sendCallCacheSize  prebuilt SVCPostSend calls per queue pair (one per batch shape, LRU)
 * @param recvCallCacheSize  prebuilt SVCPostRecv calls per queue pair (one per batch shape, LRU)
 */
public record DisniConfig(String address, int retryCount, int sendCallCacheSize, int recvCallCacheSize) {

    /**
     * The least locked-memory limit (memlock, bytes) the disni provider asks of the process before it opens:
     * registration pins pages, and the registered pool takes 4 MiB blocks, so 64 MiB leaves room for a few blocks,
     * receive rings and DiSNI's own buffers. Property {@value #MIN_MEMLOCK_PROPERTY}.
     */
    public static final long DEFAULT_MIN_MEMLOCK = 64L << 20;
    /** The system property that overrides {@link #DEFAULT_MIN_MEMLOCK}. */
    public static final String MIN_MEMLOCK_PROPERTY = "reactor.rdma.disni.minMemlock";

    public static final int DEFAULT_RETRY_COUNT = 7;
    /** Enough for every batch length 1..32 of one opcode mix, plus a few mixed shapes. */
    public static final int DEFAULT_SEND_CALL_CACHE = 64;
    /** One per receive batch length (1..32 for the default depth), plus room for other patterns. */
    public static final int DEFAULT_RECV_CALL_CACHE = 64;

    public DisniConfig {
        if (retryCount < 0 || retryCount > 7) {
            throw new IllegalArgumentException("retryCount must be 0..7, got " + retryCount);
        }
        if (sendCallCacheSize < 1) {
            throw new IllegalArgumentException("sendCallCacheSize must be at least 1");
        }
        if (recvCallCacheSize < 1) {
            throw new IllegalArgumentException("recvCallCacheSize must be at least 1");
        }
    }

    public static DisniConfig defaults() {
        return new DisniConfig(null, DEFAULT_RETRY_COUNT, DEFAULT_SEND_CALL_CACHE, DEFAULT_RECV_CALL_CACHE);
    }

    public static DisniConfig fromSystemProperties() {
        return new DisniConfig(System.getProperty("reactor.rdma.disni.address"),
                Integer.getInteger("reactor.rdma.disni.retryCount", DEFAULT_RETRY_COUNT),
                Integer.getInteger("reactor.rdma.disni.sendCallCache", DEFAULT_SEND_CALL_CACHE),
                Integer.getInteger("reactor.rdma.disni.recvCallCache", DEFAULT_RECV_CALL_CACHE));
    }

    public DisniConfig withAddress(String address) {
        return new DisniConfig(address, retryCount, sendCallCacheSize, recvCallCacheSize);
    }

    public DisniConfig withRetryCount(int retryCount) {
        return new DisniConfig(address, retryCount, sendCallCacheSize, recvCallCacheSize);
    }

    public DisniConfig withSendCallCacheSize(int size) {
        return new DisniConfig(address, retryCount, size, recvCallCacheSize);
    }

    public DisniConfig withRecvCallCacheSize(int size) {
        return new DisniConfig(address, retryCount, sendCallCacheSize, size);
    }
}
