package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Checks, without touching any DiSNI class, what the disni provider needs: libdisni on
 * {@code java.library.path}, an RDMA device, a locked-memory limit large enough to register the
 * pool, and {@code sun.nio.ch} exported to the unnamed module (DiSNI 2.1's
 * {@code MemoryUtils.getAddress} casts every direct buffer it uses to {@code sun.nio.ch.DirectBuffer}).
 *
 * <p>Every input is injectable so tests can point it at temporary files. Immutable.
 */
public final class DisniEnvironment {

    /** Where the kernel lists RDMA devices (one directory per device). */
    public static final Path SYSFS_INFINIBAND = Paths.get("/sys/class/infiniband");
    /** Where the kernel shows this process's resource limits. */
    public static final Path PROC_SELF_LIMITS = Paths.get("/proc/self/limits");
    /** Default least locked-memory limit: {@link DisniConfig#DEFAULT_MIN_MEMLOCK}. */
    public static final long DEFAULT_MIN_MEMLOCK = DisniConfig.DEFAULT_MIN_MEMLOCK;
    /** The JVM flag DiSNI needs on JDK 16+. */
    public static final String ADD_EXPORTS = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";

    /** Loads a native library by name, as {@link System#loadLibrary} does. */
    @FunctionalInterface
    public interface LibraryLoader {
        void load(String name);
    }

    private static final LibraryLoader SYSTEM_LOADER = System::loadLibrary;

    private final Path devicesDir;
    private final Path limitsFile;
    private final LibraryLoader loader;
    private final BooleanSupplier sunNioChExported;
    private final long minMemlock;
    private final BooleanSupplier slf4jPresent;

    private DisniEnvironment(Path devicesDir, Path limitsFile, LibraryLoader loader, BooleanSupplier sunNioChExported, long minMemlock,
                             BooleanSupplier slf4jPresent) {
        this.devicesDir = devicesDir;
        this.limitsFile = limitsFile;
        this.loader = loader;
        this.sunNioChExported = sunNioChExported;
        this.minMemlock = minMemlock;
        this.slf4jPresent = slf4jPresent;
    }

    /** This host and JVM; the memlock floor from {@code reactor.rdma.disni.minMemlock} (bytes) if set. */
    public static DisniEnvironment system() {
        return new DisniEnvironment(SYSFS_INFINIBAND, PROC_SELF_LIMITS, SYSTEM_LOADER, DisniEnvironment::sunNioChExportedHere,
                Long.getLong(DisniConfig.MIN_MEMLOCK_PROPERTY, DEFAULT_MIN_MEMLOCK), DisniEnvironment::slf4jOnClassPath);
    }

    public DisniEnvironment withDevicesDir(Path dir) {
        return new DisniEnvironment(Objects.requireNonNull(dir), limitsFile, loader, sunNioChExported, minMemlock, slf4jPresent);
    }

    public DisniEnvironment withLimitsFile(Path file) {
        return new DisniEnvironment(devicesDir, Objects.requireNonNull(file), loader, sunNioChExported, minMemlock, slf4jPresent);
    }

    public DisniEnvironment withLibraryLoader(LibraryLoader l) {
        return new DisniEnvironment(devicesDir, limitsFile, Objects.requireNonNull(l), sunNioChExported, minMemlock, slf4jPresent);
    }

    public DisniEnvironment withExportCheck(BooleanSupplier exported) {
        return new DisniEnvironment(devicesDir, limitsFile, loader, Objects.requireNonNull(exported), minMemlock, slf4jPresent);
    }

    public DisniEnvironment withMinMemlock(long bytes) {
        return new DisniEnvironment(devicesDir, limitsFile, loader, sunNioChExported, bytes, slf4jPresent);
    }

    public DisniEnvironment withSlf4jCheck(BooleanSupplier present) {
        return new DisniEnvironment(devicesDir, limitsFile, loader, sunNioChExported, minMemlock, Objects.requireNonNull(present));
    }

    public Path devicesDir() {
        return devicesDir;
    }

    /** Runs every check and reports each problem with its fix. */
    public DisniProbe probe() {
        List<String> devices = listDevices();
        String deviceProblem = devices.isEmpty() ? noDeviceMessage() : null;
        return new DisniProbe(loadLibrary(), devices, deviceProblem, checkMemlock(), checkExports(), checkLogging());
    }

    private List<String> listDevices() {
        if (!Files.isDirectory(devicesDir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(devicesDir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private String noDeviceMessage() {
        String what = Files.isDirectory(devicesDir) ? devicesDir + " is empty" : devicesDir + " does not exist";
        return "no RDMA device: " + what + ", so the kernel has no RDMA device registered. Install rdma-core and load "
                + "your NIC's RDMA driver (mlx5_ib for ConnectX, bnxt_re, irdma, ...), check with `ibv_devices` or `rdma link`; "
                + "to try the provider without a NIC, add a Soft-RoCE device: `rdma link add rxe0 type rxe netdev <eth>`";
    }

    private String loadLibrary() {
        try {
            loader.load("disni");
            return null;
        } catch (UnsatisfiedLinkError | SecurityException e) {
            String path = System.getProperty("java.library.path", "");
            String msg = String.valueOf(e.getMessage());
            return "libdisni did not load (" + msg + ")" + (msg.contains(path) ? "" : "; java.library.path is " + path)
                    + ". Build DiSNI 2.1's native library against rdma-core: "
                    + "install libibverbs-dev and librdmacm-dev (rdma-core), then in disni-2.1/libdisni run "
                    + "`./autoprepare.sh && ./configure --with-jdk=$JAVA_HOME && make && sudo make install`, "
                    + "and start the JVM with -Djava.library.path=/usr/local/lib (or set LD_LIBRARY_PATH)";
        }
    }

    private String checkExports() {
        if (sunNioChExported.getAsBoolean()) {
            return null;
        }
        return "the JVM does not export sun.nio.ch to unnamed modules: DiSNI 2.1 reads direct-buffer addresses through "
                + "sun.nio.ch.DirectBuffer, which JDK 16+ hides; add the JVM option " + ADD_EXPORTS
                + " (also to the test JVM's argLine)";
    }

    private String checkLogging() {
        if (slf4jPresent.getAsBoolean()) {
            return null;
        }
        return "slf4j-api is not on the class path, and DiSNI 2.1 logs through it: add org.slf4j:slf4j-api (2.x) to the "
                + "application, and a binding (slf4j-jdk14, logback, ...) to see DiSNI's logs; reactor-rdma does not "
                + "force one on you, as Netty and Reactor would switch their logging to it";
    }

    static boolean slf4jOnClassPath() {
        try {
            Class.forName("org.slf4j.LoggerFactory", false, DisniEnvironment.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private String checkMemlock() {
        Long soft = readMemlockSoftLimit(limitsFile);
        if (soft == null || soft < 0 || soft >= minMemlock) {
            return null; // unknown (not Linux) or unlimited or enough
        }
        return "the locked-memory limit is " + human(soft) + " (" + limitsFile + ", \"Max locked memory\"), below the "
                + human(minMemlock) + " that registering the pool needs: raise it with `ulimit -l unlimited` in the shell "
                + "that starts the JVM, `memlock` in /etc/security/limits.conf, or LimitMEMLOCK=infinity for a systemd "
                + "service (containers: --ulimit memlock=-1); or lower the floor with -Dreactor.rdma.disni.minMemlock=<bytes>";
    }

    /**
     * The soft "Max locked memory" limit in bytes from a {@code /proc/<pid>/limits} file: -1 for
     * unlimited, null when the file or the line is missing or unreadable.
     */
    static Long readMemlockSoftLimit(Path limits) {
        List<String> lines;
        try {
            lines = Files.readAllLines(limits);
        } catch (IOException e) {
            return null;
        }
        for (String line : lines) {
            if (line.startsWith("Max locked memory")) {
                String[] f = line.substring("Max locked memory".length()).trim().split("\\s+");
                if (f.length == 0) {
                    return null;
                }
                if (f[0].toLowerCase(Locale.ROOT).equals("unlimited")) {
                    return -1L;
                }
                try {
                    return Long.parseLong(f[0]);
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }

    static boolean sunNioChExportedHere() {
        return Object.class.getModule().isExported("sun.nio.ch", DisniEnvironment.class.getModule());
    }

    private static String human(long bytes) {
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " bytes";
    }
}
