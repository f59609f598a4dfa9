package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.PerfArguments;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * {@code java -jar reactor-rdma-perf.jar <scenario> [options]} as a picocli command: reads the options
 * ({@link PerfArguments}, checked together by {@link PerfOptions#from}) and runs the scenario's rounds
 * ({@link ScenarioRounds}). Its {@code --help} is {@link Usage}'s text around the options picocli lists.
 */
@Command(name = "reactor-rdma-perf.jar", synopsisHeading = "", sortOptions = false, usageHelpWidth = 120, optionListHeading = "options:%n")
final class ScenarioCommand implements Callable<Integer> {

    @Option(names = {"-h", "--help"}, usageHelp = true, order = 99, description = "this text")
    boolean help;

    @Mixin
    PerfArguments arguments = new PerfArguments();

    private final PrintStream out;

    private ScenarioCommand(PrintStream out) {
        this.out = out;
    }

    /** The command line of a scenario run, printing to {@code out} and {@code err}. */
    static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = CommandLines.of(new ScenarioCommand(out), out, err);
        // the text before and after the options as written (picocli would rewrap it)
        cl.getHelpSectionMap().put(UsageMessageSpec.SECTION_KEY_SYNOPSIS, help -> Usage.head());
        cl.getHelpSectionMap().put(UsageMessageSpec.SECTION_KEY_FOOTER, help -> Usage.tail());
        return cl;
    }

    @Override
    public Integer call() {
        PerfOptions o = PerfOptions.from(arguments);
        if (o.transports.stream().noneMatch(o.scenario::appliesTo)) {
            throw new UsageException("none of the transports given applies to " + o.scenario.id() + "; it runs on "
                    + o.scenario.transports().stream().map(Transport::id).reduce((a, b) -> a + ", " + b).orElse(""));
        }
        return ScenarioRounds.run(o, out) == 0 ? ExitStatus.OK : ExitStatus.FAILED;
    }
}
