package io.reactorrdma.rsocket.boot;

import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.rsocket.fallback.FallbackClientTransport;
import io.reactorrdma.rsocket.shard.ShardClient;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code reactor.rdma.*} settings. Every default is the library's own ({@link EngineConfig},
 * {@link AllocatorConfig}, {@code RdmaResources.Builder}); {@code docs/SPRING-BOOT.md} lists them in
 * one table. Checked at startup by {@link RdmaResourcesFactory}.
 */
@ConfigurationProperties("reactor.rdma")
public class RdmaProperties {

    /** Default of {@code reactor.rdma.provider}: hardware through DiSNI where present, else shm. */
    public static final String DEFAULT_PROVIDER = "auto";
    /** Default of {@code reactor.rdma.name}: the prefix of the I/O threads' names and the meters' {@code resources} tag. */
    public static final String DEFAULT_NAME = "reactor-rdma";

    /** Whether the RDMA auto-configuration is active. */
    private boolean enabled = true;
    /** Name of the shared RdmaResources: prefix of its thread names, tag of its meters. */
    private String name = DEFAULT_NAME;
    /** Verbs provider: auto, shm, loopback, soft or disni. */
    private String provider = DEFAULT_PROVIDER;
    /** I/O threads (thread domains); unset: one per two cores. */
    private Integer threads;
    /** What an idle I/O thread does: BUSY_SPIN, BACK_OFF or BLOCK. */
    private IdleStrategy idle = IdleStrategy.BACK_OFF;
    /** Engines (queue pairs) one I/O thread may drive; unset: 64. */
    private Integer maxEnginesPerThread;
    /** Directory of the shm provider's files; unset: /dev/shm/reactor-rdma-USER. */
    private Path shmDirectory;

    private final EngineSettings engine = new EngineSettings();
    private final Allocator allocator = new Allocator();
    private final Rsocket rsocket = new Rsocket();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getProvider() {
        return provider;
    }

    public void setProvider(String provider) {
        this.provider = provider;
    }

    public Integer getThreads() {
        return threads;
    }

    public void setThreads(Integer threads) {
        this.threads = threads;
    }

    public IdleStrategy getIdle() {
        return idle;
    }

    public void setIdle(IdleStrategy idle) {
        this.idle = idle;
    }

    public Integer getMaxEnginesPerThread() {
        return maxEnginesPerThread;
    }

    public void setMaxEnginesPerThread(Integer maxEnginesPerThread) {
        this.maxEnginesPerThread = maxEnginesPerThread;
    }

    public Path getShmDirectory() {
        return shmDirectory;
    }

    public void setShmDirectory(Path shmDirectory) {
        this.shmDirectory = shmDirectory;
    }

    public EngineSettings getEngine() {
        return engine;
    }

    public Allocator getAllocator() {
        return allocator;
    }

    public Rsocket getRsocket() {
        return rsocket;
    }

    /** {@code reactor.rdma.engine.*}: the engine's settings ({@link EngineConfig}). */
    public static class EngineSettings {
        /** Send-queue depth (work-request chain length). */
        private int sendQueueDepth = EngineConfig.DEFAULT_SEND_QUEUE_DEPTH;
        /** Receive-queue depth = initial credits given to the peer. */
        private int recvQueueDepth = EngineConfig.DEFAULT_RECV_QUEUE_DEPTH;
        /**
         * Receive buffers of the engines a server accepted: messages to the server up to this size go
         * in one SEND, larger ones by rendezvous. Costs recv-queue-depth buffers of it per connection.
         */
        private DataSize eagerSize = DataSize.ofBytes(EngineConfig.DEFAULT_EAGER_SIZE);
        /**
         * Receive buffers of the engines a client connected: replies up to this size come in one SEND
         * with no rendezvous round trip. Costs recv-queue-depth buffers of it per server connected
         * (64 x 64KB = 4MB of registered memory with the defaults).
         */
        private DataSize clientEagerSize = DataSize.ofBytes(EngineConfig.DEFAULT_CLIENT_EAGER_SIZE);
        /** Rendezvous WRITE fragment size: the scheduler's unit of interleaving. */
        private DataSize fragmentSize = DataSize.ofBytes(EngineConfig.DEFAULT_FRAGMENT_SIZE);
        /** Per-engine bound on bytes posted and not completed. */
        private DataSize sendWindow = DataSize.ofBytes(EngineConfig.DEFAULT_SEND_WINDOW_BYTES);
        /** Messages a socket may have in flight to a peer that has not asked for them. */
        private int socketMessageWindow = EngineConfig.DEFAULT_SOCKET_MESSAGE_WINDOW;
        /**
         * Whether this side offers pull rendezvous (the receiver READs a large message; used when
         * both sides offer it): the sender is not woken to move large replies.
         */
        private boolean pullRendezvous = EngineConfig.DEFAULT_PULL_RENDEZVOUS;
        /**
         * Largest payload copied into peer-readable memory to go by pull (an RSocket frame is such a
         * payload); larger ones go by WRITE rendezvous. 0: no copies (see docs/HARDWARE.md for RNICs).
         */
        private DataSize pullCopyLimit = DataSize.ofBytes(EngineConfig.DEFAULT_PULL_COPY_LIMIT);
        /** Largest message, hence largest RSocket frame (larger payloads need RSocket fragmentation). */
        private DataSize maxMessageSize = DataSize.ofBytes(EngineConfig.DEFAULT_MAX_MESSAGE_SIZE);
        /** An idle engine sends a heartbeat this often, so a silent dead peer is found. */
        private Duration heartbeatInterval = EngineConfig.DEFAULT_HEARTBEAT_INTERVAL;

        public int getSendQueueDepth() {
            return sendQueueDepth;
        }

        public void setSendQueueDepth(int v) {
            this.sendQueueDepth = v;
        }

        public int getRecvQueueDepth() {
            return recvQueueDepth;
        }

        public void setRecvQueueDepth(int v) {
            this.recvQueueDepth = v;
        }

        public DataSize getEagerSize() {
            return eagerSize;
        }

        public void setEagerSize(DataSize v) {
            this.eagerSize = v;
        }

        public DataSize getClientEagerSize() {
            return clientEagerSize;
        }

        public void setClientEagerSize(DataSize v) {
            this.clientEagerSize = v;
        }

        public DataSize getFragmentSize() {
            return fragmentSize;
        }

        public void setFragmentSize(DataSize v) {
            this.fragmentSize = v;
        }

        public DataSize getSendWindow() {
            return sendWindow;
        }

        public void setSendWindow(DataSize v) {
            this.sendWindow = v;
        }

        public int getSocketMessageWindow() {
            return socketMessageWindow;
        }

        public void setSocketMessageWindow(int v) {
            this.socketMessageWindow = v;
        }

        public boolean isPullRendezvous() {
            return pullRendezvous;
        }

        public void setPullRendezvous(boolean v) {
            this.pullRendezvous = v;
        }

        public DataSize getPullCopyLimit() {
            return pullCopyLimit;
        }

        public void setPullCopyLimit(DataSize v) {
            this.pullCopyLimit = v;
        }

        public DataSize getMaxMessageSize() {
            return maxMessageSize;
        }

        public void setMaxMessageSize(DataSize v) {
            this.maxMessageSize = v;
        }

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration v) {
            this.heartbeatInterval = v;
        }
    }

    /** {@code reactor.rdma.allocator.*}: the registered allocator's settings ({@link AllocatorConfig}). */
    public static class Allocator {
        /** Size of each registered block (memory region). */
        private DataSize blockSize = DataSize.ofBytes(AllocatorConfig.DEFAULT_BLOCK_SIZE);
        /** Free registered memory kept for reuse instead of being deregistered. */
        private DataSize retainedBytes = DataSize.ofBytes(AllocatorConfig.DEFAULT_RETAINED_BYTES);
        /** Largest single allocation. */
        private DataSize maxAllocation = DataSize.ofBytes(AllocatorConfig.DEFAULT_MAX_ALLOCATION);
        /** Per-thread cache, per size class. */
        private DataSize threadCacheBytesPerClass = DataSize.ofBytes(AllocatorConfig.DEFAULT_THREAD_CACHE_BYTES_PER_CLASS);
        /** Block size of the rendezvous destination pools. */
        private DataSize destinationBlockSize = DataSize.ofBytes(AllocatorConfig.DEFAULT_DESTINATION_BLOCK_SIZE);
        /** Free destination memory kept for reuse. */
        private DataSize destinationRetainedBytes = DataSize.ofBytes(AllocatorConfig.DEFAULT_DESTINATION_RETAINED_BYTES);

        public DataSize getBlockSize() {
            return blockSize;
        }

        public void setBlockSize(DataSize v) {
            this.blockSize = v;
        }

        public DataSize getRetainedBytes() {
            return retainedBytes;
        }

        public void setRetainedBytes(DataSize v) {
            this.retainedBytes = v;
        }

        public DataSize getMaxAllocation() {
            return maxAllocation;
        }

        public void setMaxAllocation(DataSize v) {
            this.maxAllocation = v;
        }

        public DataSize getThreadCacheBytesPerClass() {
            return threadCacheBytesPerClass;
        }

        public void setThreadCacheBytesPerClass(DataSize v) {
            this.threadCacheBytesPerClass = v;
        }

        public DataSize getDestinationBlockSize() {
            return destinationBlockSize;
        }

        public void setDestinationBlockSize(DataSize v) {
            this.destinationBlockSize = v;
        }

        public DataSize getDestinationRetainedBytes() {
            return destinationRetainedBytes;
        }

        public void setDestinationRetainedBytes(DataSize v) {
            this.destinationRetainedBytes = v;
        }
    }

    /** {@code reactor.rdma.rsocket.*}. */
    public static class Rsocket {
        private final Server server = new Server();
        private final Client client = new Client();

        public Server getServer() {
            return server;
        }

        public Client getClient() {
            return client;
        }
    }

    /**
     * {@code reactor.rdma.rsocket.client.*}: how the requesters of {@link RdmaRSocketRequesters} connect,
     * in particular their fallback to TCP ({@link FallbackClientTransport}).
     */
    public static class Client {
        /** Default of {@code tcp-port-offset}: the TCP port is the RDMA port + 1 (7000 → 7001). */
        public static final int DEFAULT_TCP_PORT_OFFSET = 1;

        /** Whether requesters fall back to the server's TCP port when RDMA cannot connect, and return to RDMA once it can. */
        private boolean tcpFallback;
        /** The server's TCP port to fall back to; unset: the RDMA port plus tcp-port-offset. */
        private Integer tcpPort;
        /** Added to the RDMA port to find the server's TCP port when tcp-port is unset. */
        private int tcpPortOffset = DEFAULT_TCP_PORT_OFFSET;
        /** How long one RDMA connect (the first try, and each probe while on TCP) may take. */
        private Duration rdmaConnectTimeout = FallbackClientTransport.DEFAULT_RDMA_CONNECT_TIMEOUT;
        /** How long a whole connect, RDMA try and TCP fallback together, may take; must exceed rdma-connect-timeout. */
        private Duration totalConnectTimeout = FallbackClientTransport.DEFAULT_TOTAL_CONNECT_TIMEOUT;
        /** While on TCP, the longest pause between two probes of RDMA (the back-off's cap). */
        private Duration probeInterval = FallbackClientTransport.DEFAULT_PROBE_INTERVAL;
        /** While on TCP, the pause before the first probe of RDMA (the back-off's first step). */
        private Duration firstProbeDelay = FallbackClientTransport.DEFAULT_FIRST_PROBE_DELAY;
        /** After the return to RDMA, how long requests still open on TCP may run before TCP is closed. */
        private Duration drainTimeout = FallbackClientTransport.DEFAULT_DRAIN_TIMEOUT;

        public boolean isTcpFallback() {
            return tcpFallback;
        }

        public void setTcpFallback(boolean tcpFallback) {
            this.tcpFallback = tcpFallback;
        }

        public Integer getTcpPort() {
            return tcpPort;
        }

        public void setTcpPort(Integer tcpPort) {
            this.tcpPort = tcpPort;
        }

        public int getTcpPortOffset() {
            return tcpPortOffset;
        }

        public void setTcpPortOffset(int tcpPortOffset) {
            this.tcpPortOffset = tcpPortOffset;
        }

        public Duration getRdmaConnectTimeout() {
            return rdmaConnectTimeout;
        }

        public void setRdmaConnectTimeout(Duration v) {
            this.rdmaConnectTimeout = v;
        }

        public Duration getTotalConnectTimeout() {
            return totalConnectTimeout;
        }

        public void setTotalConnectTimeout(Duration v) {
            this.totalConnectTimeout = v;
        }

        public Duration getProbeInterval() {
            return probeInterval;
        }

        public void setProbeInterval(Duration v) {
            this.probeInterval = v;
        }

        public Duration getFirstProbeDelay() {
            return firstProbeDelay;
        }

        public void setFirstProbeDelay(Duration v) {
            this.firstProbeDelay = v;
        }

        public Duration getDrainTimeout() {
            return drainTimeout;
        }

        public void setDrainTimeout(Duration v) {
            this.drainTimeout = v;
        }

        /** The shards {@link RdmaShardClients} serves, by name: {@code shards.<name>.replicas=host:port,host:port}. */
        private final Map<String, Shard> shards = new LinkedHashMap<>();
        private final ShardPolicy shard = new ShardPolicy();

        public Map<String, Shard> getShards() {
            return shards;
        }

        public ShardPolicy getShard() {
            return shard;
        }
    }

    /** {@code reactor.rdma.rsocket.client.shards.<name>.*}: one replicated shard. */
    public static class Shard {
        /** The shard's replicas, each host:port of its RDMA RSocket server (at least one). */
        private List<String> replicas = new ArrayList<>();

        public List<String> getReplicas() {
            return replicas;
        }

        public void setReplicas(List<String> replicas) {
            this.replicas = replicas;
        }
    }

    /**
     * {@code reactor.rdma.rsocket.client.shard.*}: the policies of every {@link ShardClient} of
     * {@link RdmaShardClients}; each default is {@link ShardClient}'s {@code DEFAULT_*} constant.
     */
    public static class ShardPolicy {
        /** Per-attempt timeout of a call that sets none (CallOptions.timeout). */
        private Duration timeout = ShardClient.DEFAULT_TIMEOUT;
        /** Whether calls that do not say (CallOptions) are idempotent: retried on another replica and hedged. */
        private boolean idempotentByDefault = ShardClient.DEFAULT_IDEMPOTENT;
        /** Most attempts of one idempotent call, the first included; 1 turns retries off. */
        private int maxAttempts = ShardClient.DEFAULT_MAX_ATTEMPTS;
        /** Retries may add this fraction of the calls of the budget window (0 or more). */
        private double retryBudgetRatio = ShardClient.DEFAULT_RETRY_BUDGET_RATIO;
        /** Retries always allowed per second of the budget window, however few the calls. */
        private int retryBudgetMinPerSecond = ShardClient.DEFAULT_RETRY_BUDGET_MIN_PER_SECOND;
        /** The sliding window of the retry budget and of the hedge cap. */
        private Duration budgetWindow = ShardClient.DEFAULT_BUDGET_WINDOW;
        /** Whether idempotent request-responses are hedged: a second attempt after the latency quantile. */
        private boolean hedging = ShardClient.DEFAULT_HEDGING;
        /** The latency quantile after which a hedge goes out (0 to 1, exclusive). */
        private double hedgeQuantile = ShardClient.DEFAULT_HEDGE_QUANTILE;
        /** Hedges may be at most this fraction of the window's hedgeable calls (0 to 1). */
        private double hedgeFraction = ShardClient.DEFAULT_HEDGE_FRACTION;
        /** How long one connection attempt to a replica may take. */
        private Duration connectTimeout = ShardClient.DEFAULT_CONNECT_TIMEOUT;
        /** Data MIME type of the replica connections (RSocket SETUP), as Spring's requesters send it. */
        private String dataMimeType = RdmaShardClients.DEFAULT_DATA_MIME_TYPE;

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration v) {
            this.timeout = v;
        }

        public boolean isIdempotentByDefault() {
            return idempotentByDefault;
        }

        public void setIdempotentByDefault(boolean v) {
            this.idempotentByDefault = v;
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int v) {
            this.maxAttempts = v;
        }

        public double getRetryBudgetRatio() {
            return retryBudgetRatio;
        }

        public void setRetryBudgetRatio(double v) {
            this.retryBudgetRatio = v;
        }

        public int getRetryBudgetMinPerSecond() {
            return retryBudgetMinPerSecond;
        }

        public void setRetryBudgetMinPerSecond(int v) {
            this.retryBudgetMinPerSecond = v;
        }

        public Duration getBudgetWindow() {
            return budgetWindow;
        }

        public void setBudgetWindow(Duration v) {
            this.budgetWindow = v;
        }

        public boolean isHedging() {
            return hedging;
        }

        public void setHedging(boolean v) {
            this.hedging = v;
        }

        public double getHedgeQuantile() {
            return hedgeQuantile;
        }

        public void setHedgeQuantile(double v) {
            this.hedgeQuantile = v;
        }

        public double getHedgeFraction() {
            return hedgeFraction;
        }

        public void setHedgeFraction(double v) {
            this.hedgeFraction = v;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration v) {
            this.connectTimeout = v;
        }

        public String getDataMimeType() {
            return dataMimeType;
        }

        public void setDataMimeType(String v) {
            this.dataMimeType = v;
        }
    }

    /** {@code reactor.rdma.rsocket.server.*}: serving the application's {@code @MessageMapping} handlers. */
    public static class Server {
        /** RDMA port to serve on (0: a free one); unset: no RDMA RSocket server. */
        private Integer port;
        /** TCP port to serve the same handlers on as well, for clients without RDMA (0: a free one); unset: RDMA only. */
        private Integer tcpPort;
        /** Address to bind; unset: all local addresses. */
        private InetAddress address;

        public Integer getPort() {
            return port;
        }

        public void setPort(Integer port) {
            this.port = port;
        }

        public Integer getTcpPort() {
            return tcpPort;
        }

        public void setTcpPort(Integer tcpPort) {
            this.tcpPort = tcpPort;
        }

        public InetAddress getAddress() {
            return address;
        }

        public void setAddress(InetAddress address) {
            this.address = address;
        }
    }
}
