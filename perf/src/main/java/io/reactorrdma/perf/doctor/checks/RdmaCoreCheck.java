package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.HostPaths;
import io.reactorrdma.perf.doctor.host.LibraryDirs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * rdma-core's libraries, which libdisni links and the ffm provider calls: {@code libibverbs.so.1},
 * {@code librdmacm.so.1}, and libibverbs' driver plugins ({@code libibverbs/lib*-rdmav*.so} beside it), without which
 * it lists no device.
 */
public final class RdmaCoreCheck implements Check {

    public static final List<String> LIBRARIES = List.of("libibverbs.so.1", "librdmacm.so.1");

    @Override
    public List<Finding> run(Host host) {
        List<Finding> findings = new ArrayList<>();
        Optional<String> verbs = Optional.empty();
        for (String name : LIBRARIES) {
            Optional<String> found = LibraryDirs.find(host, name);
            if (found.isEmpty()) {
                findings.add(Finding.fail(name, "not found (" + LibraryDirs.LD_SO_CACHE + ", LD_LIBRARY_PATH, "
                        + String.join(", ", LibraryDirs.usual(host.jvm().arch())) + ")", Fixes.INSTALL_RDMA_CORE, Fixes.HARDWARE));
            } else {
                findings.add(Finding.ok(name, found.get()));
                if (name.startsWith("libibverbs")) {
                    verbs = found;
                }
            }
        }
        verbs.ifPresent(path -> findings.add(drivers(host.paths(), path.substring(0, path.lastIndexOf('/')))));
        return findings;
    }

    private static Finding drivers(HostPaths paths, String libDir) {
        String dir = libDir + "/libibverbs";
        List<String> drivers = paths.list(dir).stream().filter(n -> n.startsWith("lib") && n.contains("-rdmav") && n.endsWith(".so"))
                .map(n -> n.substring(3, n.indexOf("-rdmav"))).toList();
        if (drivers.isEmpty()) {
            return Finding.warn("verbs drivers", "no driver plugins in " + dir + " (libibverbs lists no device without its NIC's)",
                    "sudo apt-get install ibverbs-providers (Debian/Ubuntu; RHEL/Fedora: they come with libibverbs)");
        }
        return Finding.ok("verbs drivers", dir + ": " + String.join(" ", drivers));
    }
}
