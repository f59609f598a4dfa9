package io.reactorrdma.tools.cli;

import picocli.CommandLine;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * Runs a picocli command the way every program of the project does: {@code --help} prints the generated usage to
 * standard output and exits {@link ExitStatus#OK}; a bad command line (an unknown option, a missing or malformed value,
 * or a {@link UsageException} the command throws while checking its options together) prints {@code error: } and what
 * is wrong to standard error, with a pointer to {@code --help}, and exits {@link ExitStatus#USAGE}; otherwise the
 * command's own exit status. An option given twice takes its last value; enum values are read in any case.
 */
public final class CommandLines {

    private CommandLines() {
    }

    /** picocli's command line for {@code command}, set up as described above, printing to {@code out} and {@code err}. */
    public static CommandLine of(Object command, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(command);
        cl.setOverwrittenOptionsAllowed(true);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setOut(new PrintWriter(out, true, charset(out)));
        cl.setErr(new PrintWriter(err, true, charset(err)));
        cl.setParameterExceptionHandler((e, args) -> usageError(e.getCommandLine(), message(e)));
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof UsageException) {
                return usageError(line, e.getMessage());
            }
            throw e;
        });
        return cl;
    }

    /**
     * Parses {@code args} into the options object of {@code cl} without running anything, for a main that goes on by
     * itself: null when it should go on; otherwise the exit status, after printing the usage ({@code --help}:
     * {@link ExitStatus#OK}) or {@code error: } with what is wrong and the usage ({@link ExitStatus#USAGE}).
     */
    public static Integer parse(CommandLine cl, String... args) {
        try {
            cl.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            cl.getErr().println("error: " + message(e));
            cl.getErr().print(cl.getUsageMessage());
            cl.getErr().flush();
            return ExitStatus.USAGE;
        }
        if (cl.isUsageHelpRequested()) {
            cl.getOut().print(cl.getUsageMessage());
            cl.getOut().flush();
            return ExitStatus.OK;
        }
        return null;
    }

    /** Parses {@code args} into {@code command} and runs it; returns the exit status. */
    public static int execute(Object command, String[] args, PrintStream out, PrintStream err) {
        return of(command, out, err).execute(args);
    }

    /**
     * What a bad command line says: a converter's {@link UsageException} as it is (it names the option and what to
     * write), otherwise picocli's own message ({@code Unknown option: '--bogus'}).
     */
    public static String message(CommandLine.ParameterException e) {
        return e.getCause() instanceof UsageException u ? u.getMessage() : e.getMessage();
    }

    private static int usageError(CommandLine line, String message) {
        PrintWriter err = line.getErr();
        err.println("error: " + message);
        err.println("see " + line.getCommandSpec().qualifiedName() + " --help");
        err.flush();
        return ExitStatus.USAGE;
    }

    private static java.nio.charset.Charset charset(PrintStream stream) {
        return stream == System.out || stream == System.err ? java.nio.charset.Charset.defaultCharset() : StandardCharsets.UTF_8;
    }
}
