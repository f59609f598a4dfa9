package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code serve <send-lat|write-bw> [--host ADDR] [--port N] [--size BYTES] [--poll spin|block]
 * [--provider NAME]}: the peer of an rdma-disni or rdma-ffm run, started by hand on the other host. It is
 * the forked peer ({@link PeerMain}) with hardware defaults: provider ffm on Java 22 or later and disni
 * before, port 18515, and an hour before its watchdog ends it. It serves one run, then exits; keep its standard input open (a
 * terminal), since the peer exits when standard input closes. Read by picocli.
 */
@Command(name = "serve", sortOptions = false)
final class ServeCommand {

    private static final String SYNOPSIS = "serve <send-lat|write-bw> [--host ADDR] [--port N] [--size BYTES] "
            + "[--poll spin|block] [--provider NAME]";

    @Parameters(index = "0", arity = "0..1", paramLabel = "<send-lat|write-bw>")
    String scenario;

    @Option(names = "--host", paramLabel = "ADDR", description = "the RDMA address to listen on (default 0.0.0.0)")
    String host = "0.0.0.0";

    @Option(names = "--port", paramLabel = "N", description = "the port (default " + PerfOptions.DEFAULT_PEER_PORT + ")")
    int port = PerfOptions.DEFAULT_PEER_PORT;

    @Option(names = "--size", paramLabel = "BYTES", converter = Size.class, description = "the message size, as the client's")
    Integer size;

    @Option(names = "--poll", paramLabel = "spin|block", converter = Poll.class, description = "how the peer polls")
    String poll;

    @Option(names = "--provider", paramLabel = "NAME", description = "the RDMA provider (default ffm on Java 22+, else disni)")
    String provider = Runtime.version().feature() >= 22 ? "ffm" : "disni";

    @Option(names = "--max-seconds", paramLabel = "S", description = "the watchdog (default 3600)")
    int maxSeconds = 3600;

    private ServeCommand() {
    }

    /** The {@link PeerMain} arguments for a serve command line. */
    static String[] peerArgs(String[] args) {
        ServeCommand c = new ServeCommand();
        PrintStream none = new PrintStream(OutputStream.nullOutputStream());
        try {
            CommandLines.of(c, none, none).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new UsageException("serve: " + CommandLines.message(e) + "; use " + SYNOPSIS);
        }
        if (c.scenario == null || !(c.scenario.equals(Scenario.SEND_LAT.id()) || c.scenario.equals(Scenario.WRITE_BW.id()))) {
            throw new UsageException("serve needs a scenario: " + SYNOPSIS);
        }
        List<String> out = new ArrayList<>(List.of(c.scenario, "--provider", c.provider, "--port", Integer.toString(c.port),
                "--max-seconds", Integer.toString(c.maxSeconds), "--host", c.host));
        if (c.size != null) {
            out.addAll(List.of("--size", Integer.toString(c.size)));
        }
        if (c.poll != null) {
            out.addAll(List.of("--poll", c.poll));
        }
        return out.toArray(new String[0]);
    }

    /** {@code --size}: as the scenario runs'. */
    static final class Size implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return PerfOptions.parseSize(value);
        }
    }

    /** {@code --poll}: spin or block (back-off is the engine's policy, which these scenarios do not use). */
    static final class Poll implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (PollMode.parse(value) == PollMode.BACK_OFF) {
                throw new UsageException("serve: --poll back-off is the library's idle policy and applies to echo, rsocket-* "
                        + "and fanout; send-lat and write-bw poll by hand: use --poll spin or block");
            }
            return value;
        }
    }
}
