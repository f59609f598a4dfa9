package io.reactorrdma.examples.ps;

import io.reactorrdma.examples.ps.demo.DemoOptions;
import io.reactorrdma.examples.ps.demo.DemoRun;
import io.reactorrdma.examples.ps.ranker.RankerMain;
import io.reactorrdma.examples.ps.shard.ShardMain;
import io.reactorrdma.examples.ps.trainer.TrainerMain;
import io.reactorrdma.tools.cli.UsageException;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The entry point of {@code ps-demo.jar}: {@code demo} runs the whole demo and writes its report;
 * {@code shard}, {@code ranker} and {@code trainer} run one piece alone ({@link ShardMain},
 * {@link RankerMain}, {@link TrainerMain}, e.g. on different hosts). {@code --help} (or no command)
 * prints the commands and the demo's options. Exit status: 0 success, 1 a phase failed, 2 a usage error.
 *
 * <pre>
 * java -jar ps-demo.jar demo --quick
 * java -jar ps-demo.jar shard --index 0 --count 4 --provider disni --host 10.0.0.5 --rdma-port 7000 --tcp-port 7001
 * java -jar ps-demo.jar ranker --shards 10.0.0.5:7000 --provider disni --duration 60s
 * </pre>
 */
public final class PsDemoMain {

    private PsDemoMain() {
    }

    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        // the shard command exits by itself; a finished demo must not wait for Reactor's or Netty's non-daemon threads
        System.exit(status);
    }

    /** Runs one command; returns its exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
            out.println(usage());
            return args.length == 0 ? 2 : 0;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "demo":
                return demo(rest, out, err);
            case "shard":
                return ShardMain.run(rest, out, err);
            case "ranker":
                return RankerMain.run(rest, out, err);
            case "trainer":
                return TrainerMain.run(rest, out, err);
            default:
                err.println("unknown command '" + args[0] + "'");
                err.println(usage());
                return 2;
        }
    }

    private static int demo(String[] args, PrintStream out, PrintStream err) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            out.println(DemoOptions.usage());
            return 0;
        }
        DemoOptions options;
        try {
            options = DemoOptions.parse(List.of(args));
        } catch (UsageException e) {
            err.println("demo: " + e.getMessage());
            err.println(DemoOptions.usage());
            return 2;
        }
        return new DemoRun(options, out, System.console() != null).run();
    }

    /** The commands, and the demo's options. */
    static String usage() {
        return String.join("\n",
                "usage: java -jar ps-demo.jar COMMAND [options]",
                "  demo     the parameter-server demo: inference RDMA vs TCP, training with the send window on/off,",
                "           a replica killed and restarted; writes demo-report/ (see below)",
                "  shard    one shard replica as a process (ShardMain; a bad option prints its options)",
                "  ranker   user requests against running shards (RankerMain)",
                "  trainer  trainers against running shards (TrainerMain)",
                "",
                DemoOptions.usage());
    }
}
