package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;

import java.nio.file.Files;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/**
 * libdisni, DiSNI's native library, on {@code java.library.path}, where the disni provider loads it from. Only its
 * presence is checked (the doctor loads nothing); whether it loads (the rdma-core libraries it links, its JNI version)
 * shows when the provider opens.
 */
public final class LibdisniCheck implements Check {

    public static final String FILE = "libdisni.so";
    /** Where {@code make install} of DiSNI's libdisni puts it. */
    public static final List<String> INSTALL_DIRS = List.of("/usr/local/lib", "/usr/lib", "/usr/lib64", "/usr/local/lib64");

    /** The libdisni on {@code java.library.path}, as a host path. */
    public static Optional<String> onLibraryPath(Host host) {
        for (String dir : host.jvm().libraryPath()) {
            String path = dir.replaceFirst("/+$", "") + "/" + FILE;
            if (Files.isRegularFile(host.paths().resolve(path))) {
                return Optional.of(path);
            }
        }
        return Optional.empty();
    }

    @Override
    public List<Finding> run(Host host) {
        Optional<String> found = onLibraryPath(host);
        if (found.isPresent()) {
            return List.of(Finding.ok("libdisni", found.get() + " (on java.library.path; loaded only when the disni provider opens)"));
        }
        String path = host.jvm().libraryPath().isEmpty() ? "empty" : String.join(":", host.jvm().libraryPath());
        for (String dir : INSTALL_DIRS) {
            if (Files.isRegularFile(host.paths().resolve(dir + "/" + FILE))) {
                return List.of(Finding.fail("libdisni", dir + "/" + FILE + " exists but is not on java.library.path (" + path + ")",
                        "start the JVM with -Djava.library.path=" + dir + " (or put " + dir + " on LD_LIBRARY_PATH)",
                        EnumSet.of(Provider.DISNI)));
            }
        }
        return List.of(Finding.fail("libdisni", "no " + FILE + " on java.library.path (" + path + ")",
                "build DiSNI 2.1's libdisni (docs/HARDWARE.md, \"Installing rdma-core and building libdisni\": needs libibverbs-dev,"
                        + " librdmacm-dev, autotools and a JDK) and start the JVM with -Djava.library.path=/usr/local/lib",
                EnumSet.of(Provider.DISNI)));
    }
}
