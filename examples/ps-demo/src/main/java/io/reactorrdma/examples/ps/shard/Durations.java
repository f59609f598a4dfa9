package io.reactorrdma.examples.ps.shard;

import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.ITypeConverter;

import java.time.Duration;
import java.util.Locale;

/** picocli's converter of the example processes' run times: {@code 30s}, {@code 500ms}, {@code 2m}. */
public final class Durations implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        String s = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            } else if (s.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
            } else if (s.endsWith("m")) {
                return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)) * 60);
            }
        } catch (NumberFormatException e) {
            // falls through to the usage error
        }
        throw new UsageException("--duration takes a duration such as 30s, 500ms or 2m, got '" + value + "'");
    }
}
