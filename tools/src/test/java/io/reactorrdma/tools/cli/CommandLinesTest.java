package io.reactorrdma.tools.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;

/** Help exits 0, a bad command line exits 2 with a message, the command's own status otherwise. */
class CommandLinesTest {

    enum Mode { SPIN, BLOCK }

    @Command(name = "try", description = "A command to try.")
    static final class Try implements Callable<Integer> {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
        boolean help;
        @Option(names = "--count", description = "how many")
        int count = 1;
        @Option(names = "--mode")
        Mode mode = Mode.SPIN;

        @Override
        public Integer call() {
            if (count > 9) {
                throw new UsageException("--count " + count + " is too many; use 1..9");
            }
            return count == 3 ? ExitStatus.FAILED : ExitStatus.OK;
        }
    }

    private record Run(int status, String out, String err) {
    }

    private static Run run(Try command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = CommandLines.execute(command, args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpPrintsTheGeneratedUsage() {
        Run r = run(new Try(), "--help");
        assertThat(r.status()).isEqualTo(ExitStatus.OK);
        assertThat(r.out()).contains("Usage: try", "--count", "how many");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void badInputExitsTwoSayingWhatIsWrong() {
        Run unknown = run(new Try(), "--bogus");
        assertThat(unknown.status()).isEqualTo(ExitStatus.USAGE).isEqualTo(2);
        assertThat(unknown.err()).startsWith("error: Unknown option: '--bogus'").contains("see try --help");
        assertThat(run(new Try(), "--count", "x").err()).contains("error: Invalid value for option '--count'", "'x'");
        Run checked = run(new Try(), "--count", "10");
        assertThat(checked.status()).isEqualTo(ExitStatus.USAGE);
        assertThat(checked.err()).startsWith("error: --count 10 is too many; use 1..9");
    }

    @Test
    void parseAloneSaysWhetherToGoOn() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        Try t = new Try();
        assertThat(CommandLines.parse(CommandLines.of(t, e, e), "--count", "4")).isNull();
        assertThat(t.count).isEqualTo(4);
        assertThat(CommandLines.parse(CommandLines.of(new Try(), e, e), "--help")).isEqualTo(ExitStatus.OK);
        assertThat(CommandLines.parse(CommandLines.of(new Try(), e, e), "--mode", "sometimes")).isEqualTo(ExitStatus.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("error: Invalid value for option '--mode'", "Usage: try");
    }

    @Test
    void theLastValueWinsEnumsInAnyCaseAndTheCommandsStatus() {
        Try t = new Try();
        assertThat(run(t, "--count", "2", "--count=3", "--mode", "block").status()).isEqualTo(ExitStatus.FAILED);
        assertThat(t.count).isEqualTo(3);
        assertThat(t.mode).isEqualTo(Mode.BLOCK);
        assertThat(run(new Try()).status()).isEqualTo(ExitStatus.OK);
    }
}
