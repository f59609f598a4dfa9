package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.tools.cli.UsageException;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code serve <send-lat|write-bw> [--host ADDR] [--port N] [--size BYTES] [--poll spin|block]
 * [--provider NAME]}: the peer of an rdma-disni run, started by hand on the other host. It is the
 * forked peer ({@link PeerMain}) with hardware defaults: provider disni, port 18515, and an hour
 * before its watchdog ends it. It serves one run, then exits; keep its standard input open (a
 * terminal), since the peer exits when standard input closes.
 */
final class ServeCommand {

    private ServeCommand() {
    }

    /** The {@link PeerMain} arguments for a serve command line. */
    static String[] peerArgs(String[] args) {
        if (args.length == 0 || !(args[0].equals(Scenario.SEND_LAT.id()) || args[0].equals(Scenario.WRITE_BW.id()))) {
            throw new UsageException("serve needs a scenario: serve <send-lat|write-bw> [--host ADDR] [--port N] [--size BYTES] "
                    + "[--poll spin|block] [--provider NAME]");
        }
        List<String> out = new ArrayList<>(List.of(args[0], "--provider", "disni", "--port",
                Integer.toString(PerfOptions.DEFAULT_PEER_PORT), "--max-seconds", "3600", "--host", "0.0.0.0"));
        for (int i = 1; i < args.length; i += 2) {
            String name = args[i];
            if (i + 1 >= args.length) throw new UsageException(name + " needs a value");
            String value = args[i + 1];
            switch (name) {
                case "--size":
                    value = Integer.toString(PerfOptions.parseSize(value));
                    break;
                case "--poll":
                    if (PollMode.parse(value) == PollMode.BACK_OFF) {
                        throw new UsageException("serve: --poll back-off is the library's idle policy and applies to echo, rsocket-* "
                                + "and fanout; send-lat and write-bw poll by hand: use --poll spin or block");
                    }
                    break;
                case "--host":
                case "--port":
                case "--provider":
                case "--max-seconds":
                    break;
                default:
                    throw new UsageException("serve: unknown option '" + name + "'");
            }
            int at = out.indexOf(name);
            if (at > 0) out.set(at + 1, value);
            else {
                out.add(name);
                out.add(value);
            }
        }
        return out.toArray(new String[0]);
    }
}
