package io.reactorrdma.perf.cli;

import io.reactorrdma.tools.cli.UsageException;

import java.util.function.Function;
import java.util.function.Supplier;

/** The perf CLI's option values are enums, each constant with the word that names it on the command line. */
final class CliIds {

    private CliIds() {
    }

    /**
     * The constant of {@code values} whose {@code id} is {@code word}.
     *
     * @throws UsageException with {@code unknown}'s message when none is
     */
    static <E extends Enum<E>> E parse(E[] values, Function<E, String> id, String word, Supplier<String> unknown) {
        for (E e : values) {
            if (id.apply(e).equals(word)) {
                return e;
            }
        }
        throw new UsageException(unknown.get());
    }
}
