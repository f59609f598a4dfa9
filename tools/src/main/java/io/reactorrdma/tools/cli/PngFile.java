package io.reactorrdma.tools.cli;

import picocli.CommandLine.ITypeConverter;

import java.nio.file.Path;
import java.util.Locale;

/** picocli's converter of a chart's file name ({@code --chart FILE.png}): a path that ends in {@code .png}. */
public final class PngFile implements ITypeConverter<Path> {

    @Override
    public Path convert(String value) {
        if (!value.trim().toLowerCase(Locale.ROOT).endsWith(".png")) {
            throw new UsageException("bad --chart '" + value + "': give a file name ending in .png");
        }
        return Path.of(value.trim());
    }
}
