package io.reactorrdma.perf.doctor.host;

import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.config.SoftConfig;

import java.io.File;
import java.util.Arrays;
import java.util.List;

/**
 * What the doctor takes from the JVM it runs in, read once ({@link #current()}) so tests can give their own: the JDK,
 * {@code java.library.path} (where libdisni must be), {@code LD_LIBRARY_PATH}, the memlock floor of the disni
 * provider ({@code reactor.rdma.disni.minMemlock}) and the shm provider's directory ({@code reactor.rdma.soft.shmDir}).
 * Run the doctor with the application's {@code -D} options and environment to judge the application's JVM.
 *
 * @param feature       the JDK's feature release (17, 21, 25)
 * @param version       the JDK's full version and vendor, as shown
 * @param libraryPath   the directories of {@code java.library.path}
 * @param ldLibraryPath the directories of {@code LD_LIBRARY_PATH}
 * @param minMemlock    the locked-memory floor the disni provider checks, in bytes
 * @param shmDirectory  the shm provider's directory, a host path
 * @param arch          {@code os.arch} (which multiarch library directory to look in)
 * @param directMemoryAccess whether Netty's direct memory access ({@code sun.misc.Unsafe}) is on: registered buffers need it
 */
public record JvmFacts(int feature, String version, List<String> libraryPath, List<String> ldLibraryPath, long minMemlock,
                       String shmDirectory, String arch, boolean directMemoryAccess) {

    /** The locked-memory floor of the disni provider when its property is unset: {@link DisniConfig#DEFAULT_MIN_MEMLOCK}. */
    public static final long DEFAULT_MIN_MEMLOCK = DisniConfig.DEFAULT_MIN_MEMLOCK;

    public JvmFacts {
        libraryPath = List.copyOf(libraryPath);
        ldLibraryPath = List.copyOf(ldLibraryPath);
    }

    /** This JVM: its version, system properties and environment. */
    public static JvmFacts current() {
        Runtime.Version v = Runtime.version();
        String vendor = System.getProperty("java.vendor", "");
        return new JvmFacts(v.feature(), v + (vendor.isEmpty() ? "" : " (" + vendor + ")"),
                split(System.getProperty("java.library.path", "")), split(System.getenv().getOrDefault("LD_LIBRARY_PATH", "")),
                Long.getLong(DisniConfig.MIN_MEMLOCK_PROPERTY, DEFAULT_MIN_MEMLOCK),
                SoftConfig.fromSystemProperties().shmDirectory().toString(), System.getProperty("os.arch", ""),
                directMemoryAccess(v.feature(), System.getProperty("io.netty.noUnsafe"),
                        System.getProperty("sun.misc.unsafe.memory.access")));
    }

    /** A copy with {@code java.library.path} set to {@code dirs}. */
    public JvmFacts withLibraryPath(List<String> dirs) {
        return new JvmFacts(feature, version, dirs, ldLibraryPath, minMemlock, shmDirectory, arch, directMemoryAccess);
    }

    /** A copy with another shm directory. */
    public JvmFacts withShmDirectory(String dir) {
        return new JvmFacts(feature, version, libraryPath, ldLibraryPath, minMemlock, dir, arch, directMemoryAccess);
    }

    /** A copy with another JDK. */
    public JvmFacts withJdk(int feature, String version) {
        return new JvmFacts(feature, version, libraryPath, ldLibraryPath, minMemlock, shmDirectory, arch, directMemoryAccess);
    }

    /** A copy with Netty's direct memory access on or off. */
    public JvmFacts withDirectMemoryAccess(boolean on) {
        return new JvmFacts(feature, version, libraryPath, ldLibraryPath, minMemlock, shmDirectory, arch, on);
    }

    /**
     * Whether Netty 4.2 keeps its direct memory access on, decided from the options as Netty decides (the doctor loads
     * nothing of Netty): off where {@code io.netty.noUnsafe} is true; off where the JVM restricts {@code sun.misc.Unsafe}
     * memory access ({@code --sun-misc-unsafe-memory-access} other than {@code allow}); off by default on Java 25+, unless
     * either option says otherwise.
     */
    public static boolean directMemoryAccess(int feature, String nettyNoUnsafe, String unsafeMemoryAccess) {
        if (unsafeMemoryAccess != null && !"allow".equals(unsafeMemoryAccess)) {
            return false;
        }
        if (nettyNoUnsafe != null) {
            return !(nettyNoUnsafe.isEmpty() || Boolean.parseBoolean(nettyNoUnsafe));
        }
        return feature < 25 || unsafeMemoryAccess != null;
    }

    private static List<String> split(String path) {
        return Arrays.stream(path.split(File.pathSeparator)).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
