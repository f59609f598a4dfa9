package io.reactorrdma.perf;

import io.reactorrdma.perf.report.ResultWriter;
import io.reactorrdma.perf.rsocket.StreamLoop;

import java.io.OutputStream;
import java.io.PrintStream;

/**
 * The {@code --help} text of the scenario runs: every scenario and transport, the options (their descriptions are
 * {@code PerfArguments}' annotations), the CSV columns, the exit statuses.
 */
final class Usage {

    private Usage() {
    }

    /** The text of {@code --help}: {@link #head()}, the options as picocli lists them, {@link #tail()}. */
    static String text() {
        return ScenarioCommand.commandLine(new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(OutputStream.nullOutputStream())).getUsageMessage();
    }

    /** What {@code --help} prints before the options: the command lines and the scenarios. */
    static String head() {
        return String.join(System.lineSeparator(),
                "reactor-rdma perf: perftest-style benchmarks of the verbs layer, echo through the Reactor API, and RSocket",
                "",
                "usage: java -jar reactor-rdma-perf.jar <scenario> [options]",
                "       java -jar reactor-rdma-perf.jar jmh [JMH options]      (JMH micro-benchmarks; jmh -h for JMH's help)",
                "       java -jar reactor-rdma-perf.jar allocator-report [--quick] (allocator benchmark matrix; --help for its options)",
                "       java -jar reactor-rdma-perf.jar soak [--duration 10m] [--connections 16] [--seed N] "
                        + "(fault soak over shm; soak --help)",
                "       java -jar reactor-rdma-perf.jar doctor [--provider auto|disni|shm|ffm] (checks this host for the providers:",
                "                                      RDMA devices, rdma-core, libdisni, memlock, /dev/shm; what to fix; doctor --help)",
                "       java -jar reactor-rdma-perf.jar incast-sim [--trainers 346 --servers 124 --window 64k,off ...] (RoCE incast",
                "                                      simulation and the send window to configure, as java -jar incast-sim.jar;",
                "                                      incast-sim --help)",
                "",
                "scenarios:",
                "  send-lat   SEND/RECV ping-pong; reports the round-trip time (not half of it). Default size 8 bytes.",
                "  write-bw   RDMA WRITE bandwidth: a window of up to 128 outstanding WRITEs into the peer's",
                "             REMOTE_WRITE region, every 16th signaled; the peer checks the data (CRC32) at the end.",
                "             Default size 1m. The peer is passive (it waits blocked; RDMA WRITE needs no peer CPU).",
                "  echo       closed-loop echo through the public API: each connection sends a --size message and waits",
                "             for its echo, then sends the next (driven from the receive callback, on the I/O thread).",
                "             RDMA: RdmaClient/RdmaServer, echo handler out.send(in.receive()); tcp: Reactor Netty.",
                "             Default size 64. Prints both RDMA engines' rdma.* meters for the measured phase.",
                "  rsocket-rr RSocket request-response, a closed loop per connection: the server answers with the request's",
                "             payload (PayloadDecoder.ZERO_COPY on both ends). Default size 64. Prints the RDMA engines' meters.",
                "  rsocket-stream  RSocket request-stream, one per connection: the server streams --size payloads as the",
                "             client's demand allows (" + StreamLoop.WINDOW + " ahead, topped up by half); reports MiB/s. Default size 1m.",
                "  fanout     one client fans each request out to --shards shards of --replicas replicas, served by --replicas",
                "             forked JVMs (JVM r hosts replica r of every shard); RSocket request-response through the",
                "             recovery layer's ShardClient per shard and FanOut (idempotent calls, 10 s per attempt, hedged",
                "             after the shard's p95 up to 5 %), or --client plain; --connections closed-loop callers. Each",
                "             sub-request's size is drawn from a KB-to-MB mix: 4k 40%, 16k 25%, 64k 20%, 256k 10%, 1m 5%",
                "             (mean 95.2 KiB); the replica echoes it. Reports the whole fan-out's time (first send to last",
                "             answer), fan-outs as ops, CPU per fan-out of this process and of all server JVMs together.",
                "") + System.lineSeparator();
    }

    /** What {@code --help} prints after the options: the CSV columns, the properties, the exit statuses. */
    static String tail() {
        return String.join(System.lineSeparator(),
                "",
                "CSV columns: " + ResultWriter.CSV_HEADER,
                "  latencies in microseconds from an HdrHistogram of nanoseconds; empty where a figure does not apply.",
                "  poll: the --poll mode of the run (tcp, local, memcpy, shm-floor ignore it; they run in each mode as",
                "  the same invocation's reference). run: 1..N for a run, median for a transport's medians over a mode's",
                "  runs (--repeat N > 1 only). baseline and the *_x columns only on median rows: the median of the per-run",
                "  ratios figure / baseline's figure; cpu_x of client + server CPU per op where both are measured.",
                "  cpu_us_per_op: CPU time over the measured phase / ops. rdma-shm, shm-floor: client = this process,",
                "  server = the peer process. rdma-loopback: client = the client thread, server = the server thread",
                "  (shared-JVM provider threads, JIT and GC in neither). memcpy: the copying thread.",
                "  echo: mib_per_s = echoes per second x size; rdma-shm, tcp: client = this process, server = the peer",
                "  process; rdma-loopback: each side's I/O thread and soft-provider thread. rsocket-*: the same;",
                "  local: this process (both ends) as client, server empty. rsocket-stream: no latencies, ops = payloads.",
                "  ucx: ucx_perftest's Final: line. echo (tag_lat): ops = iterations (round trips); mean = 2 x its overall",
                "  latency and p50 = 2 x its 50th percentile (it prints one-way latency; its percentile covers the last",
                "  2048 iterations only); mib_per_s = its overall bandwidth / 2 (it counts both directions). rsocket-stream",
                "  (tag_bw): ops = messages, mib_per_s = its overall bandwidth. p99, p99.9 and both CPU columns empty.",
                "  fanout: ops = fan-outs, latencies of the whole fan-out, size_bytes = the mix's mean sub-request,",
                "  mib_per_s = sub-request bytes per second (each crosses once each way), server = all server JVMs.",
                "",
                "system properties reactor.rdma.* and io.netty.* are passed on to forked peers.",
                "exit status: 0 all ran, 1 a transport failed, 2 bad command line.") + System.lineSeparator();
    }
}
