package io.reactorrdma.verbs.soft.shared;

import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsException;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The per-user directory of the shm fabric: owned by this uid, not a symbolic link, mode exactly
 * 0700 (checked at every start, see {@link #checkPrivate}); files 0600. Every file of a context starts
 * with the context id ({@code <pid>-<hex>.}); the context holds an exclusive lock on
 * {@code <id>.lock} for its whole life. The kernel drops that lock when the process dies, so at
 * every start the files of contexts whose lock can be taken are the leftovers of dead processes,
 * and are deleted. Listener sockets are {@code port-<port>.sock}.
 */
public final class ShmDirectory {

    /** The context-id prefix of this process's contexts. */
    private static final String OWN_PID_PREFIX = ProcessHandle.current().pid() + "-";
    /** A context id as formed by {@link io.reactorrdma.verbs.soft.SoftContext}: never a path. */
    public static final Pattern CONTEXT_ID = Pattern.compile("[0-9]{1,10}-[0-9a-f]{1,8}");

    static final Set<PosixFilePermission> PRIVATE_DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");

    final Path dir;
    private final String id;
    private final FileChannel lockChannel;
    private final FileLock lock;

    public ShmDirectory(Path dir, String id) {
        this.dir = dir;
        this.id = id;
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Path parent = dir.getParent();
                if (parent != null && !Files.isDirectory(parent)) {
                    throw new ProviderUnavailableException("the shm fabric needs the directory " + parent
                            + " (a tmpfs such as /dev/shm); it does not exist. Set reactor.rdma.soft.shmDir to a tmpfs directory");
                }
                try {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIRECTORY));
                    Files.setPosixFilePermissions(dir, PRIVATE_DIRECTORY); // exactly 0700 whatever the umask
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another process created it; checked below like any existing directory
                }
            }
            checkPrivate(dir);
            Path tmp = dir.resolve(id + ".lock.tmp");
            lockChannel = FileChannel.open(tmp, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(PRIVATE_FILE));
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
                if (other.equals(id) || !CONTEXT_ID.matcher(other).matches() || other.startsWith(OWN_PID_PREFIX)) {
                    // Never probe a context of this process: closing the probe's channel would drop every
                    // POSIX lock this process holds on that file — the live context's own lock included —
                    // and the next start in another process would delete its files. (A leftover of a dead
                    // process that had our pid is reclaimed by the next start of another process.)
                    continue;
                }
                try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
                    FileLock l = ch.tryLock();
                    if (l != null) {
                        dead.add(other);
                        l.release();
                    }
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

    /**
     * Records that this context listens on {@code port}: a file {@code <id>.listener-<port>} holding
     * the identity (device and inode) of {@code port-<port>.sock}. A socket file carries no context
     * id, so when this process dies without unlinking it (SIGKILL, a crash) the next start finds it
     * through this mark and deletes it — if it is still the same file, not a later listener's.
     */
    public void markListener(int port) {
        Object key = fileKey(socket(port));
        if (key == null) {
            return;
        }
        Path mark = file(id, LISTENER_MARK + port);
        try {
            Files.writeString(Files.createFile(mark, PosixFilePermissions.asFileAttribute(PRIVATE_FILE)),
                    key.toString());
        } catch (IOException e) {
            // best effort: without the mark, a bind of this port still replaces the file once it is dead
        }
    }

    /** The name (after the context id) of the mark of a listener: {@code listener-<port>}. */
    public static final String LISTENER_MARK = "listener-";

    private static Object fileKey(Path file) {
        try {
            return Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /** Deletes the socket file a dead context's listener mark names, if it is still the file the mark identifies. */
    private void deleteMarkedSocket(Path mark, String contextId) {
        String name = mark.getFileName().toString();
        String port = name.substring(contextId.length() + 1 + LISTENER_MARK.length());
        if (!port.matches("[0-9]{1,5}")) {
            return;
        }
        Path socket = socket(Integer.parseInt(port));
        try {
            Object key = fileKey(socket);
            if (key != null && key.toString().equals(Files.readString(mark))) {
                SharedMemory.deleteQuietly(socket);
            }
        } catch (IOException | RuntimeException e) {
            // best effort
        }
    }

    private int deleteFilesOf(String contextId) {
        int n = 0;
        try (DirectoryStream<Path> marks = Files.newDirectoryStream(dir, contextId + "." + LISTENER_MARK + "*")) {
            for (Path mark : marks) {
                deleteMarkedSocket(mark, contextId);
            }
        } catch (IOException ignored) {
            // best effort
        }
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

    /**
     * Refuses a directory that another local user could use against us: it must be a real
     * directory (not a symbolic link), owned by this process's uid, with mode exactly 0700. Then
     * only this uid (and root) can create, replace or connect to anything in it; and since
     * /dev/shm is sticky, nobody else can rename or remove the directory itself afterwards.
     */
    static void checkPrivate(Path dir) throws IOException {
        PosixFileAttributes attrs = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attrs.isSymbolicLink()) {
            throw new ProviderUnavailableException("the shm directory " + dir + " is a symbolic link (to "
                    + Files.readSymbolicLink(dir) + "); another local user could point it anywhere. Remove the link, or set "
                    + "reactor.rdma.soft.shmDir to a real directory of mode 0700 owned by you");
        }
        if (!attrs.isDirectory()) {
            throw new ProviderUnavailableException("the shm directory " + dir + " exists but is not a directory; remove it, or set "
                    + "reactor.rdma.soft.shmDir to another path");
        }
        int owner = ownerUid(dir);
        int self = processUid();
        if (owner != self) {
            throw new ProviderUnavailableException("the shm directory " + dir + " is owned by uid " + owner + " ("
                    + attrs.owner().getName() + "), not by this process's uid " + self + ": another user may have created it to "
                    + "read or replace our files. Remove it (as its owner or root), or set reactor.rdma.soft.shmDir to a directory "
                    + "of mode 0700 owned by you");
        }
        Set<PosixFilePermission> perms = attrs.permissions();
        if (!perms.equals(PRIVATE_DIRECTORY)) {
            throw new ProviderUnavailableException("the shm directory " + dir + " has mode " + PosixFilePermissions.toString(perms)
                    + "; it must be rwx------ (0700) so that no other user can reach its memory files and sockets. Fix: chmod 700 "
                    + dir + " (or remove it and let the provider create it)");
        }
    }

    /** The effective uid of this process: the owner of its /proc entry. */
    static int processUid() throws IOException {
        Integer uid = processUid;
        if (uid == null) {
            processUid = uid = (Integer) Files.getAttribute(Paths.get("/proc/self"), "unix:uid");
        }
        return uid;
    }

    private static volatile Integer processUid;

    /** The uid owning {@code file} itself (a symbolic link is not followed). */
    static int ownerUid(Path file) throws IOException {
        return (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    /** Makes a file this context created owner-only (a socket is created with the umask's mode). */
    public static void makePrivate(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PRIVATE_FILE);
    }

    public Path file(String contextId, String name) {
        return dir.resolve(contextId + "." + name);
    }

    public Path socket(int port) {
        return dir.resolve("port-" + port + ".sock");
    }

    public MappedByteBuffer create(String name, int size) {
        Path f = file(id, name);
        try {
            return SharedMemory.createAndMap(f, size);
        } catch (IOException e) {
            long free = usableSpace();
            if (free >= 0 && free < size || String.valueOf(e.getMessage()).contains("No space left")) {
                throw new VerbsException("the tmpfs of the shm directory " + dir + " has no room for " + size + " more bytes ("
                        + (free >= 0 ? free + " bytes free" : "free space unknown") + ") to create " + f.getFileName()
                        + ": free memory there (df " + dir + "; files of dead contexts are reclaimed at the next start), "
                        + "enlarge it (mount -o remount,size=... on the tmpfs), or set reactor.rdma.soft.shmDir to a larger tmpfs", e);
            }
            throw new VerbsException("cannot create the shared-memory file " + f + " (" + size + " bytes): " + e.getMessage()
                    + ". Check free space on the tmpfs (df " + dir + ")", e);
        }
    }

    /** Bytes still free for us on the directory's file system, or -1 if unknown. */
    private long usableSpace() {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    public void delete(String name) {
        SharedMemory.deleteQuietly(file(id, name));
    }

    /** Deletes every file of this context and releases its lock. */
    public void close() {
        deleteFilesOf(id);
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException ignored) {
            // the lock goes with the process anyway
        }
    }
}
