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
 * a shutdown hook. A demo killed with SIGKILL runs no hook: its directory is named after its pid
 * ({@code ps-demo-<pid>-*}), and the next demo deletes the directories of demos no longer running.
 */
public final class DemoShmDirectory implements AutoCloseable {

    /** Where the directory is made: /dev/shm (tmpfs), or the temp directory where there is none. */
    public static final Path DEFAULT_PARENT = Path.of("/dev/shm");
    private static final String PREFIX = "ps-demo-";

    private final Path path;
    private final Thread hook;

    private DemoShmDirectory(Path path) {
        this(path, true);
    }

    private DemoShmDirectory(Path path, boolean hooked) {
        this.path = path;
        this.hook = new Thread(this::delete, "ps-demo-remove-shm");
        if (hooked) {
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /** A new directory {@code ps-demo-<pid>-*} under {@link #DEFAULT_PARENT}, after deleting those of dead demos. */
    public static DemoShmDirectory create() {
        try {
            Path parent = Files.isDirectory(DEFAULT_PARENT) ? DEFAULT_PARENT : Path.of(System.getProperty("java.io.tmpdir"));
            deleteOrphans(parent);
            return new DemoShmDirectory(Files.createTempDirectory(parent, PREFIX + ProcessHandle.current().pid() + "-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the demo's shm directory under " + DEFAULT_PARENT + ": " + e.getMessage(), e);
        }
    }

    /** Deletes {@code ps-demo-<pid>-*} directories whose demo process is no longer running. */
    private static void deleteOrphans(Path parent) {
        try (Stream<Path> dirs = Files.list(parent)) {
            dirs.filter(Files::isDirectory).forEach(d -> {
                String name = d.getFileName().toString();
                if (!name.startsWith(PREFIX)) {
                    return;
                }
                String rest = name.substring(PREFIX.length());
                int dash = rest.indexOf('-');
                try {
                    long pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                        return;
                    }
                } catch (NumberFormatException e) {
                    return; // not one of ours
                }
                new DemoShmDirectory(d, false).delete();
            });
        } catch (IOException | RuntimeException e) {
            // best effort: a directory we cannot read or delete is another user's or in use
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
