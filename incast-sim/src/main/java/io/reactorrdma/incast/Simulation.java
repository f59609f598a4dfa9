package io.reactorrdma.incast;

import io.reactorrdma.incast.dcqcn.DcqcnConfig;
import io.reactorrdma.incast.dcqcn.EcnMarker;
import io.reactorrdma.incast.dcqcn.NotificationPoints;
import io.reactorrdma.incast.dcqcn.ReactionPoints;
import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.Topology;

import org.HdrHistogram.Histogram;

import java.util.Arrays;

/**
 * The event loop and the handlers that tie the fabric together: each flow's sender engine ({@code SenderEngines})
 * cuts the application's messages into fragments and posts them within its chain depth and send window; NICs pull
 * packets from their flows' posted fragments round-robin, ports
 * serialize one packet at a time (ACKs first, data unless PFC paused), links delay, switches charge the ingress
 * port's share of the buffer, queue on the egress and send PFC frames upstream; receivers ACK, a fragment completes
 * at the ACK of its last packet, and a message with its last fragment. Single-threaded and deterministic: one seed,
 * one output.
 */
public final class Simulation {

    static final int POST = 0;
    static final int TX_DONE = 1;
    static final int ARRIVE = 2;
    static final int PFC_FRAME = 3;
    static final int WORKLOAD = 4;
    /** A rate-limited NIC may send again (DCQCN); 8 leaves room for other kinds to be added in order. */
    static final int RATE_WAKE = 8;

    private final IncastConfig config;
    private final Topology topology;
    private final Links links;
    private final EventQueue events = new EventQueue();
    private final Packets packets = new Packets();
    private final Flows flows = new Flows();
    private final SenderEngines engines;
    private final Nic nic;
    private final Pfc pfc;
    private final QueueStats queues;
    private final SharedBuffer[] buffers;
    private final IntFifo[] control;
    private final IntFifo[] data;
    private final boolean[] busy;
    private final long[] txBytes;
    private Workload workload;
    private DcqcnConfig dcqcn;
    private EcnMarker ecn;
    private NotificationPoints notification;
    private ReactionPoints reaction;
    private long[] wakePs;
    private long wakes;
    private boolean started;
    private long nowPs;
    private long processed;

    /** A fabric of {@code topology} with {@code config}'s links and switches, no flows yet; the default engines. */
    public Simulation(IncastConfig config, Topology topology) {
        this(config, topology, SenderConfig.defaults());
    }

    /**
     * A fabric of {@code topology} with {@code config}'s links and switches and {@code sender}'s engine per flow (send
     * window, chain depth, fragment size), no flows yet.
     */
    public Simulation(IncastConfig config, Topology topology, SenderConfig sender) {
        this.config = config;
        this.topology = topology;
        this.links = new Links(topology, config);
        this.nic = new Nic(topology.hosts(), flows, packets, config);
        this.engines = new SenderEngines(sender, topology.hosts());
        int ports = topology.ports();
        this.pfc = new Pfc(ports);
        this.queues = new QueueStats(ports);
        this.buffers = new SharedBuffer[topology.switches()];
        for (int s = 0; s < buffers.length; s++) {
            buffers[s] = new SharedBuffer(s, topology.firstPort(s), topology.portCount(s),
                    topology.switchBufferBytes(s, config), links, config);
        }
        this.control = new IntFifo[ports];
        this.data = new IntFifo[ports];
        for (int p = 0; p < ports; p++) {
            control[p] = new IntFifo();
            data[p] = topology.switchOf(p) >= 0 ? new IntFifo() : null;
        }
        this.busy = new boolean[ports];
        this.txBytes = new long[ports];
    }

    /** Adds a flow (a QP) from host {@code src} to host {@code dst}; returns its id. */
    public int addFlow(int src, int dst) {
        if (src < 0 || dst < 0 || src >= topology.hosts() || dst >= topology.hosts() || src == dst) {
            throw new IllegalArgumentException("flow " + src + " -> " + dst + ": hosts are 0.." + (topology.hosts() - 1)
                    + " and a flow needs two different ones");
        }
        engines.add(src);
        int flow = flows.add(src, dst);
        if (reaction != null) {
            reaction.add(flow, links.serializationPs(src, 1), nowPs);
        }
        return flow;
    }

    /**
     * Installs DCQCN (docs/INCAST.md "DCQCN"): ECN marking at every switch egress, CNPs from the receivers,
     * a rate limiter per flow (QP) starting at line rate; {@code seed} seeds the marking. Call it before the first run;
     * flows added before or after get a rate limiter. A config with {@code enabled} false changes nothing: the model
     * then behaves exactly as without this call. Returns this simulation.
     */
    public Simulation congestionControl(DcqcnConfig config, long seed) {
        if (started || dcqcn != null) {
            throw new IllegalStateException("congestionControl: call it once, before the first run");
        }
        if (!config.enabled()) {
            return this;
        }
        ReactionPoints rates = new ReactionPoints(config);
        for (int f = 0; f < flows.count(); f++) {
            rates.add(f, links.serializationPs(flows.src(f), 1), nowPs);
        }
        dcqcn = config;
        ecn = new EcnMarker(config, topology.ports(), seed);
        notification = new NotificationPoints(config);
        reaction = rates;
        nic.rateLimit(rates);
        wakePs = new long[topology.hosts()];
        Arrays.fill(wakePs, Long.MAX_VALUE);
        return this;
    }

    /** Posts a message of {@code bytes} payload on {@code flow} at {@code atPs} (not before now). */
    public void post(int flow, int bytes, long atPs) {
        if (flow < 0 || flow >= flows.count() || bytes <= 0 || atPs < nowPs) {
            throw new IllegalArgumentException("post flow " + flow + ", " + bytes + " B at " + atPs + " ps: needs a flow "
                    + "0.." + (flows.count() - 1) + ", positive bytes and a time not before now (" + nowPs + " ps)");
        }
        events.push(atPs, POST, flow, bytes);
    }

    /** Posts a message now (from a workload). */
    public void postNow(int flow, int bytes) {
        if (flow < 0 || flow >= flows.count() || bytes <= 0) {
            throw new IllegalArgumentException("post flow " + flow + ", " + bytes + " B: needs a flow 0.."
                    + (flows.count() - 1) + " and positive bytes");
        }
        onPost(flow, bytes);
    }

    /** Sets the workload; it starts with the first run. */
    public void workload(Workload w) {
        this.workload = w;
    }

    /** Schedules an event for the workload. */
    public void scheduleWorkload(long atPs, int a, int b) {
        events.push(atPs, WORKLOAD, a, b);
    }

    /** Runs until no event is left; returns the events processed by this call. */
    public long run() {
        return runUntil(Long.MAX_VALUE);
    }

    /** Runs the events due at or before {@code endPs}; returns the events processed by this call. */
    public long runUntil(long endPs) {
        if (!started) {
            started = true;
            if (workload != null) {
                workload.start(this);
            }
        }
        long before = processed;
        while (events.peekTime() <= endPs && events.pop()) {
            nowPs = events.time();
            processed++;
            dispatch(events.kind(), events.a(), events.b());
        }
        return processed - before;
    }

    private void dispatch(int kind, int a, int b) {
        switch (kind) {
            case POST -> onPost(a, b);
            case TX_DONE -> {
                busy[a] = false;
                startTx(a);
            }
            case ARRIVE -> onArrive(topology.peer(a), b);
            case PFC_FRAME -> {
                pfc.onFrame(a, b == 1, nowPs);
                startTx(a);
            }
            case WORKLOAD -> workload.onEvent(this, a, b);
            case RATE_WAKE -> {
                wakes++;
                if (wakePs[a] == nowPs) {
                    wakePs[a] = Long.MAX_VALUE;
                }
                startTx(a);
            }
            default -> throw new IllegalStateException("unknown event kind " + kind);
        }
    }

    private void onPost(int flow, int bytes) {
        engines.post(this, flow, bytes, nowPs);
    }

    /** {@code flow}'s engine posts a work request (a fragment) of {@code bytes}: the NIC takes it up. */
    void postWr(int flow, int bytes) {
        if (flows.post(flow, bytes)) {
            int host = flows.src(flow);
            nic.activate(host, flow, nowPs);
            startTx(host);
        }
    }

    private void startTx(int port) {
        if (busy[port]) {
            return;
        }
        int packet = -1;
        if (!control[port].isEmpty()) {
            packet = control[port].poll();
        } else if (!pfc.paused(port)) {
            int sw = topology.switchOf(port);
            if (sw < 0) {
                packet = nic.nextPacket(port, nowPs);
                if (packet < 0 && reaction != null) {
                    wakeWhenEligible(port);
                }
            } else if (!data[port].isEmpty()) {
                packet = data[port].poll();
                int wire = packets.wireBytes(packet);
                queues.dequeue(port, wire, nowPs - packets.enqueuedPs(packet), nowPs);
                if (ecn != null && ecn.mark(port, queues.bytes(port))) {
                    packets.markCe(packet);
                }
                int ingress = packets.ingress(packet);
                if (buffers[sw].release(ingress, wire)) {
                    sendPfc(ingress, false);
                }
            }
        }
        if (packet < 0) {
            return;
        }
        busy[port] = true;
        int wire = packets.wireBytes(packet);
        txBytes[port] += wire;
        long done = nowPs + links.serializationPs(port, wire);
        events.push(done, TX_DONE, port, 0);
        events.push(done + links.delayPs(port), ARRIVE, port, packet);
    }

    /** Schedules one wake-up of {@code host}'s NIC when its earliest rate-limited flow may send, unless one is due. */
    private void wakeWhenEligible(int host) {
        long at = nic.nextEligiblePs(host);
        if (at < wakePs[host]) {
            wakePs[host] = at;
            events.push(at, RATE_WAKE, host, 0);
        }
    }

    /** The switch sends a PFC frame from ingress {@code port} to the port upstream of it. */
    private void sendPfc(int port, boolean pause) {
        long arrive = nowPs + links.serializationPs(port, config.pfcFrameBytes()) + links.delayPs(port);
        events.push(arrive, PFC_FRAME, topology.peer(port), pause ? 1 : 0);
    }

    private void onArrive(int port, int packet) {
        int sw = topology.switchOf(port);
        if (sw >= 0) {
            onSwitch(sw, port, packet);
        } else {
            onHost(port, packet);
        }
    }

    private void onSwitch(int sw, int ingress, int packet) {
        int flow = packets.flow(packet);
        boolean isData = packets.kind(packet) == Packets.DATA;
        int egress = topology.egress(sw, isData ? flows.dst(flow) : flows.src(flow), flow);
        if (isData) {
            int wire = packets.wireBytes(packet);
            if (buffers[sw].admit(ingress, wire)) {
                sendPfc(ingress, true);
            }
            packets.ingress(packet, ingress);
            packets.enqueuedPs(packet, nowPs);
            queues.enqueue(egress, wire, nowPs);
            data[egress].add(packet);
        } else {
            control[egress].add(packet);
        }
        startTx(egress);
    }

    private void onHost(int host, int packet) {
        int flow = packets.flow(packet);
        boolean last = packets.last(packet);
        int message = packets.message(packet);
        if (packets.kind(packet) == Packets.DATA) {
            if (flows.dst(flow) != host) {
                throw new IllegalStateException("host " + host + " got a packet of flow " + flow + " for host "
                        + flows.dst(flow) + ": a routing error in the topology");
            }
            if (notification != null && packets.ce(packet) && notification.onMarked(flow, nowPs)) {
                control[host].add(packets.allocate(Packets.CNP, flow, dcqcn.cnpBytes(), 0, message, false));
                startTx(host);
            }
            if (flows.onData(flow, packets.payloadBytes(packet), last, config.ackEveryPackets())) {
                int ack = packets.allocate(Packets.ACK, flow, config.ackBytes(), flows.takeAckBytes(flow), message, last);
                control[host].add(ack);
                startTx(host);
            }
        } else if (packets.kind(packet) == Packets.CNP) {
            reaction.onCnp(flow, nowPs);
        } else {
            if (flows.onAck(flow, packets.payloadBytes(packet), message, last)) {
                engines.onCompleted(this, flow, nowPs);
            }
        }
        packets.free(packet);
    }

    /** {@code flow}'s engine completed an application message posted at {@code postedPs}. */
    void messageCompleted(int flow, long postedPs) {
        flows.recordCompletion(flow, nowPs - postedPs, nowPs);
        if (workload != null) {
            workload.onComplete(this, flow);
        }
    }

    /** Simulated time now, in picoseconds. */
    public long nowPs() {
        return nowPs;
    }

    /** Events processed so far. */
    public long events() {
        return processed;
    }

    /** The configuration. */
    public IncastConfig config() {
        return config;
    }

    /** The topology. */
    public Topology topology() {
        return topology;
    }

    /** The engines' configuration: send window, chain depth, fragment size. */
    public SenderConfig sender() {
        return engines.config();
    }

    /** Per message, the time it waited in its engine: from its post to the post of its last fragment, picoseconds. */
    public Histogram engineWaitPs() {
        return engines.engineWaitPs();
    }

    /** The most bytes one engine (QP) had posted and not completed. */
    public long peakEngineBytes() {
        return engines.peakEngineBytes();
    }

    /** The most bytes the engines of one host had posted and not completed: the deepest NIC send backlog. */
    public long peakHostPostedBytes() {
        return engines.peakHostBytes();
    }

    /** Times an engine had a fragment ready and its send window refused it. */
    public long windowStalls() {
        return engines.windowStalls();
    }

    /** The engines (package-private: tests read their state and install a probe). */
    SenderEngines engines() {
        return engines;
    }

    /** Message completion times (the application's post to the ACK of its last packet), picoseconds. */
    public Histogram completionPs() {
        return flows.completionPs();
    }

    /** Messages completed. */
    public long completions() {
        return flows.completions();
    }

    /** When the last message completed, picoseconds. */
    public long lastCompletionPs() {
        return flows.lastCompletionPs();
    }

    /** A hash of every completion in order: equal runs give equal digests. */
    public long digest() {
        return flows.digest();
    }

    /** Payload bytes of {@code flow} delivered to its receiver. */
    public long deliveredBytes(int flow) {
        return flows.deliveredBytes(flow);
    }

    /** Wire bytes {@code port} has transmitted. */
    public long txBytes(int port) {
        return txBytes[port];
    }

    /** The peak data queue of {@code port} in wire bytes (values that held for a positive time). */
    public long peakQueueBytes(int port) {
        return queues.peakBytes(port);
    }

    /** Data bytes waiting at {@code port} now. */
    public long queueBytes(int port) {
        return queues.bytes(port);
    }

    /** ∫ waiting data packets dt at {@code port}, packet·ps. */
    public long queuePacketPsIntegral(int port) {
        return queues.packetPsIntegral(port);
    }

    /** Sum of the waits of data packets dequeued at {@code port}, ps. */
    public long queueWaitPsSum(int port) {
        return queues.waitPsSum(port);
    }

    /** Data packets dequeued at {@code port}. */
    public long dequeued(int port) {
        return queues.dequeued(port);
    }

    /** Data packets queued at {@code port}. */
    public long enqueued(int port) {
        return queues.enqueued(port);
    }

    /** Time from the first to the last data packet queued at {@code port}, ps; (packets − 1) / span is the arrival rate. */
    public long arrivalSpanPs(int port) {
        return queues.arrivalSpanPs(port);
    }

    /** XOFF frames received by {@code port}. */
    public long xoffs(int port) {
        return pfc.xoffs(port);
    }

    /** XOFF frames sent in all. */
    public long xoffTotal() {
        return pfc.xoffTotal();
    }

    /** How long {@code port} was paused, ps. */
    public long pausedPs(int port) {
        return pfc.pausedPs(port, nowPs);
    }

    /** Whether {@code port} was ever paused. */
    public boolean everPaused(int port) {
        return pfc.everPaused(port);
    }

    /** The most one ingress port of switch {@code sw} ever held, bytes. */
    public long maxIngressBytes(int sw) {
        return buffers[sw].maxIngressBytes();
    }

    /** The most switch {@code sw}'s buffer ever held, bytes. */
    public long maxBufferBytes(int sw) {
        return buffers[sw].maxUsedBytes();
    }

    /** Switch {@code sw}'s dynamic threshold now, bytes. */
    public long threshold(int sw) {
        return buffers[sw].threshold();
    }

    /** ECN marks by every switch egress (DCQCN); 0 without DCQCN. */
    public long ecnMarks() {
        return ecn == null ? 0 : ecn.total();
    }

    /** ECN marks by switch egress {@code port}; 0 without DCQCN. */
    public long ecnMarks(int port) {
        return ecn == null ? 0 : ecn.marks(port);
    }

    /** CNPs sent by the receivers (each reaches its sender and cuts the QP's rate); 0 without DCQCN. */
    public long cnps() {
        return notification == null ? 0 : notification.total();
    }

    /**
     * {@code flow}'s DCQCN current rate RC in b/s as of its last packet or CNP (reading it does not advance the
     * lazy timers); the line rate without DCQCN.
     */
    public double rateBitsPerSecond(int flow) {
        return reaction == null ? 8e12 / links.serializationPs(flows.src(flow), 1) : reaction.rateBitsPerSecond(flow);
    }

    /** Wake-ups of NICs whose flows all waited for their rate limiters. */
    long rateWakes() {
        return wakes;
    }

    /** CNPs that reached their senders and cut a rate (equals {@link #cnps()} once drained). */
    long rateCuts() {
        return reaction == null ? 0 : reaction.cuts();
    }

    /**
     * True when the fabric has drained: every buffer counter zero, no XOFF outstanding, no packet alive or queued,
     * every posted message acknowledged, no engine holding a message or window bytes.
     */
    public boolean drained() {
        for (SharedBuffer buffer : buffers) {
            if (!buffer.isEmpty()) {
                return false;
            }
        }
        for (int p = 0; p < busy.length; p++) {
            if (busy[p] || !control[p].isEmpty() || (data[p] != null && !data[p].isEmpty()) || queues.bytes(p) != 0
                    || pfc.paused(p)) {
                return false;
            }
        }
        return packets.live() == 0 && flows.allAcknowledged() && engines.drained();
    }
}
