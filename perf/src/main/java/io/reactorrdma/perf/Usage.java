package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.report.ResultWriter;
import io.reactorrdma.perf.rsocket.StreamLoop;




/** The {@code --help} text of the scenario runs: every scenario, transport and option, the CSV columns, the exit statuses. */
final class Usage {

    private Usage() {
    }

    /** The text of {@code --help}. */
    static String text() {
        return String.join(System.lineSeparator(),
                "reactor-rdma perf: perftest-style benchmarks of the verbs layer, echo through the Reactor API, and RSocket",
                "",
                "usage: java -jar reactor-rdma-perf.jar <scenario> [options]",
                "       java -jar reactor-rdma-perf.jar jmh [JMH options]      (JMH micro-benchmarks; jmh -h for JMH's help)",
                "       java -jar reactor-rdma-perf.jar allocator-report [--quick] (allocator benchmark matrix; --help for its options)",
                "       java -jar reactor-rdma-perf.jar soak [--duration 10m] [--connections 16] [--seed N] (fault soak over shm; soak --help)",
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
                "",
                "options:",
                "  --transports LIST  comma list of:",
                "                       rdma-shm       soft RDMA provider over /dev/shm; the peer is a forked process",
                "                       rdma-loopback  soft RDMA provider, both ends in this JVM (peer on a thread)",
                "                       shm-floor      send-lat floor: two processes ping-pong a counter in a mapped file",
                "                                      under /dev/shm (always spins)",
                "                       memcpy         write-bw floor: one thread copying --size bytes between direct buffers",
                "                       tcp            echo: Reactor Netty TcpServer/TcpClient on 127.0.0.1, 4-byte length",
                "                                      prefix per message; rsocket-*: RSocket's TcpClientTransport/TcpServerTransport;",
                "                                      the server is a forked process (--poll does not apply)",
                "                       local          rsocket-*: RSocket's in-JVM Local transport, the floor of RSocket's own",
                "                                      overhead (--poll does not apply)",
                "                       rdma-disni     RDMA hardware (RoCE/InfiniBand) through DiSNI; the peer runs on the host",
                "                                      given by --peer, started there by hand (serve below). Only when asked for;",
                "                                      send-lat and write-bw only (serve has no echo or rsocket peer).",
                "                     default: all that apply (send-lat: rdma-shm,rdma-loopback,shm-floor;",
                "                     write-bw: rdma-shm,rdma-loopback,memcpy; echo: rdma-shm,rdma-loopback,tcp;",
                "                     rsocket-rr, rsocket-stream: rdma-shm,rdma-loopback,tcp,local).",
                "                     Ones that do not apply are skipped with a note.",
                "  --size BYTES       message size; suffixes k, m, g are binary (1m = 1048576). 1 byte .. 1g",
                "  --duration SECS    measured phase, default 5 (fractions allowed)",
                "  --warmup SECS      warm-up phase before it, default 2 (0 for none)",
                "  --poll spin|block  spin: busy-poll the completion queue (default); block: arm it and sleep until",
                "                     a completion event. Applies to both ends of send-lat and to the write-bw client;",
                "                     echo, rsocket-*: both ends' RdmaResources idle BUSY_SPIN (spin) or BLOCK (block).",
                "  --connections N    echo, rsocket-*: N concurrent connections, each its own closed loop (or stream);",
                "                     default 1, at most " + PerfOptions.MAX_CONNECTIONS,
                "  --peer HOST[:PORT] rdma-disni's peer: the RDMA interface address of a host running",
                "                       java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -Djava.library.path=/usr/local/lib \\",
                "                         -jar reactor-rdma-perf.jar serve <scenario> --host <its RDMA IPv4> [--size BYTES] [--poll MODE]",
                "                     (one run per start; same --size on both sides; default port " + PerfOptions.DEFAULT_PEER_PORT + ")",
                "  --chart FILE.png   after the run, draw the latency distributions of every transport measured (one line",
                "                     each, round trip against percentile, log scales) into FILE.png",
                "  --csv              standard output holds only CSV, one line per transport; logs go to standard error",
                "  --help, -h         this text",
                "",
                "CSV columns: " + ResultWriter.CSV_HEADER,
                "  latencies in microseconds from an HdrHistogram of nanoseconds; empty where a figure does not apply.",
                "  cpu_us_per_op: CPU time over the measured phase / ops. rdma-shm, shm-floor: client = this process,",
                "  server = the peer process. rdma-loopback: client = the client thread, server = the server thread",
                "  (shared-JVM provider threads, JIT and GC in neither). memcpy: the copying thread.",
                "  echo: mib_per_s = echoes per second x size; rdma-shm, tcp: client = this process, server = the peer",
                "  process; rdma-loopback: each side's I/O thread and soft-provider thread. rsocket-*: the same;",
                "  local: this process (both ends) as client, server empty. rsocket-stream: no latencies, ops = payloads.",
                "",
                "system properties reactor.rdma.* are passed on to forked peers.",
                "exit status: 0 all ran, 1 a transport failed, 2 bad command line.");
    }
}
