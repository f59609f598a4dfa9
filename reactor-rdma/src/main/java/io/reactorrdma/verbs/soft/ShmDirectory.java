package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsException;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The per-user directory of the shm fabric (mode 0700; files 0600). Every file of a context starts
 * with the context id ({@code <pid>-<hex>.}); the context holds an exclusive lock on
 * {@code <id>.lock} for its whole life. The kernel drops that lock when the process dies, so at
 * every start the files of contexts whose lock can be taken are the leftovers of dead processes,
 * and are deleted. Listener sockets are {@code port-<port>.sock}.
 */
final class ShmDirectory {

    /** A context id as formed by {@link SoftContext}: never a path. */
    static final Pattern CONTEXT_ID = Pattern.compile("[0-9]{1,10}-[0-9a-f]{1,8}");

    final Path dir;
    private final String id;
    private final FileChannel lockChannel;
    private final FileLock lock;

    ShmDirectory(Path dir, String id) {
        this.dir = dir;
        this.id = id;
        try {
            if (!Files.isDirectory(dir)) {
                Path parent = dir.getParent();
                if (parent != null && !Files.isDirectory(parent)) {
                    throw new ProviderUnavailableException("the shm fabric needs the directory " + parent
                            + " (a tmpfs such as /dev/shm); it does not exist. Set reactor.rdma.soft.shmDir to a tmpfs directory");
                }
                try {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another process created it
                }
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
            if (perms.contains(PosixFilePermission.OTHERS_WRITE) || perms.contains(PosixFilePermission.GROUP_WRITE)) {
                throw new ProviderUnavailableException("the shm directory " + dir + " is writable by others ("
                        + PosixFilePermissions.toString(perms) + "); use a private directory (mode 0700)");
            }
            Path tmp = dir.resolve(id + ".lock.tmp");
            lockChannel = FileChannel.open(tmp, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            lock = lockChannel.lock();
            // Renamed only once locked, so a reclaimer never sees an unlocked lock file of a live context.
            Files.move(tmp, dir.resolve(id + ".lock"), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ProviderUnavailableException("cannot use the shm directory " + dir + ": " + e
                    + ". Check that it is a writable tmpfs directory, or set reactor.rdma.soft.shmDir", e);
        }
        reclaimDeadContexts();
    }

    /** Deletes the files of contexts whose process died without cleaning up. */
    int reclaimDeadContexts() {
        int reclaimed = 0;
        List<String> dead = new ArrayList<>();
        try (DirectoryStream<Path> locks = Files.newDirectoryStream(dir, "*.lock")) {
            for (Path lockFile : locks) {
                String other = lockFile.getFileName().toString();
                other = other.substring(0, other.length() - ".lock".length());
                if (other.equals(id) || !CONTEXT_ID.matcher(other).matches()) {
                    continue;
                }
                try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
                    FileLock l = ch.tryLock();
                    if (l != null) {
                        dead.add(other);
                        l.release();
                    }
                } catch (OverlappingFileLockException alive) {
                    // held by another context of this JVM
                } catch (IOException gone) {
                    // deleted meanwhile
                }
            }
        } catch (IOException e) {
            return 0;
        }
        for (String other : dead) {
            reclaimed += deleteFilesOf(other);
        }
        return reclaimed;
    }

    private int deleteFilesOf(String contextId) {
        int n = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, contextId + ".*")) {
            for (Path f : files) {
                if (!f.getFileName().toString().endsWith(".lock")) {
                    SharedMemory.deleteQuietly(f);
                    n++;
                }
            }
        } catch (IOException ignored) {
            // best effort
        }
        SharedMemory.deleteQuietly(dir.resolve(contextId + ".lock"));
        return n;
    }

    Path file(String contextId, String name) {
        return dir.resolve(contextId + "." + name);
    }

    Path socket(int port) {
        return dir.resolve("port-" + port + ".sock");
    }

    MappedByteBuffer create(String name, int size) {
        Path f = file(id, name);
        try {
            return SharedMemory.createAndMap(f, size);
        } catch (IOException e) {
            throw new VerbsException("cannot create the shared-memory file " + f + " (" + size + " bytes): " + e.getMessage()
                    + ". Check free space on the tmpfs (df " + dir + ")", e);
        }
    }

    void delete(String name) {
        SharedMemory.deleteQuietly(file(id, name));
    }

    /** Deletes every file of this context and releases its lock. */
    void close() {
        deleteFilesOf(id);
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException ignored) {
            // the lock goes with the process anyway
        }
    }
}
