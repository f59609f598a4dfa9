package io.reactorrdma.examples.ps.demo.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The shm directory of one demo run: a fresh directory under /dev/shm (the soft provider's memory
 * files and UNIX sockets of this JVM and its shards), private to this user (0700, as the provider
 * requires), deleted with everything in it on {@link #close()} and, if the demo ends otherwise, by
 * a shutdown hook.
 */
public final class ShmDirectory implements AutoCloseable {

    /** Where the directory is made: /dev/shm (tmpfs), or the temp directory where there is none. */
    public static final Path DEFAULT_PARENT = Path.of("/dev/shm");

    private final Path path;
    private final Thread hook;

    private ShmDirectory(Path path) {
        this.path = path;
        this.hook = new Thread(this::delete, "ps-demo-remove-shm");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** A new directory {@code ps-demo-*} under {@link #DEFAULT_PARENT}. */
    public static ShmDirectory create() {
        try {
            Path parent = Files.isDirectory(DEFAULT_PARENT) ? DEFAULT_PARENT : Path.of(System.getProperty("java.io.tmpdir"));
            return new ShmDirectory(Files.createTempDirectory(parent, "ps-demo-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the demo's shm directory under " + DEFAULT_PARENT + ": " + e.getMessage(), e);
        }
    }

    /** The directory. */
    public Path path() {
        return path;
    }

    private void delete() {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a file a dying shard still writes: the walk below reports what is left
                }
            });
        } catch (IOException e) {
            // reported below
        }
    }

    /** Deletes the directory and everything in it; says so when something could not be deleted. */
    @Override
    public void close() {
        delete();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down: the hook runs anyway
        }
        if (Files.exists(path)) {
            throw new IllegalStateException("could not delete the demo's shm directory " + path + "; remove it by hand");
        }
    }
}
