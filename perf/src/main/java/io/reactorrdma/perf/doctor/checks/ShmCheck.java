package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Bytes;
import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.HostPaths;
import io.reactorrdma.perf.doctor.host.Mounts;
import io.reactorrdma.perf.doctor.host.PoolNeed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The shm provider's directory ({@code /dev/shm/reactor-rdma-<user>} unless {@code reactor.rdma.soft.shmDir} says
 * otherwise): its parent exists, the directory is this user's and private (or can be made), it lies on a tmpfs
 * ({@code /proc/mounts}), and the file system has room for the pools.
 */
public final class ShmCheck implements Check {

    /** Below this much free space a host fits only a few processes' pools (Docker's default /dev/shm is 64 MiB). */
    public static final long ROOMY = 256L << 20;

    private static final Set<Provider> SHM = EnumSet.of(Provider.SHM);
    private static final String SET_DIR = "set reactor.rdma.shm-directory (Spring Boot) or -Dreactor.rdma.soft.shmDir to a directory"
            + " on a tmpfs";

    private final PoolNeed pools;

    public ShmCheck(PoolNeed pools) {
        this.pools = pools;
    }

    @Override
    public List<Finding> run(Host host) {
        HostPaths paths = host.paths();
        String dirName = host.jvm().shmDirectory();
        Path dir = paths.resolve(dirName);
        Path parent = dir.getParent();
        String parentName = parent == null ? "/" : paths.display(parent);
        if (parent == null || !Files.isDirectory(parent)) {
            return List.of(Finding.fail("shm", parentName + " does not exist",
                    "mount a tmpfs there (sudo mount -t tmpfs -o size=1g tmpfs " + parentName + ") or " + SET_DIR, SHM));
        }
        Optional<Finding> access = access(dir, dirName, parent, parentName);
        if (access.isPresent()) {
            return List.of(access.get());
        }
        Path existing = Files.isDirectory(dir) ? dir : parent;
        long free;
        try {
            free = Files.getFileStore(existing).getUsableSpace();
        } catch (IOException e) {
            free = -1;
        }
        Optional<String> type = Mounts.typeOf(paths, paths.display(existing));
        String found = dirName + (Files.isDirectory(dir) ? "" : " (created at first use)") + ": "
                + type.map(t -> t + ", ").orElse("file system type unknown (/proc/mounts unreadable), ")
                + (free < 0 ? "free space unknown" : Bytes.shown(free) + " free");
        if (free >= 0 && free < pools.oneConnection()) {
            return List.of(Finding.fail("shm", found + "; " + pools.shown(), enlarge(parentName), SHM));
        }
        if (type.isPresent() && !type.get().equals("tmpfs")) {
            return List.of(Finding.warn("shm", found, "not a tmpfs, so the shm files are written back to disk: " + SET_DIR));
        }
        if (free >= 0 && free < ROOMY) {
            return List.of(Finding.warn("shm", found + ", room for the pools of a few processes only", enlarge(parentName)));
        }
        return List.of(Finding.ok("shm", found));
    }

    private static String enlarge(String parentName) {
        return "give the tmpfs more room: sudo mount -o remount,size=1g " + parentName + " (docker run --shm-size=1g;"
                + " Kubernetes: an emptyDir with medium Memory), or free it (df " + parentName + ")";
    }

    /** Whether this user can use the directory: an existing one must be its own and private, a new one needs a writable parent. */
    private static Optional<Finding> access(Path dir, String dirName, Path parent, String parentName) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isWritable(parent)) {
                return Optional.of(Finding.fail("shm", parentName + " is not writable by this user, so " + dirName + " cannot be created",
                        "make " + parentName + " writable (a tmpfs of mode 1777, as /dev/shm is) or " + SET_DIR, SHM));
            }
            return Optional.empty();
        }
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.of(Finding.fail("shm", dirName + " exists but is not a directory",
                        "remove it (rm " + dirName + ") or " + SET_DIR, SHM));
            }
            String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
            String user = System.getProperty("user.name", "");
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            if (!owner.equals(user) || !mode.equals(PosixFilePermissions.fromString("rwx------"))) {
                return Optional.of(Finding.fail("shm", dirName + " is owned by " + owner + " with mode "
                                + PosixFilePermissions.toString(mode) + "; the provider wants it this user's (" + user + ") and rwx------",
                        "remove it (rm -r " + dirName + ": the provider recreates it) or " + SET_DIR, SHM));
            }
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.of(Finding.warn("shm", dirName + ": owner and mode unreadable (" + e.getMessage() + ")",
                    "check it is a directory of this user with mode 700 (ls -ld " + dirName + ")"));
        }
        return Optional.empty();
    }
}
