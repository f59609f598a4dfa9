package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.HostPaths;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The character devices user-space verbs and rdma_cm open: {@code /dev/infiniband/uverbs*} and
 * {@code /dev/infiniband/rdma_cm}, present and readable and writable by this user.
 */
public final class DeviceFilesCheck implements Check {

    public static final String DIR = "/dev/infiniband";

    @Override
    public List<Finding> run(Host host) {
        HostPaths paths = host.paths();
        List<String> uverbs = paths.list(DIR).stream().filter(n -> n.startsWith("uverbs")).toList();
        List<Finding> findings = new ArrayList<>();
        String container = "; in a container: docker run --device=/dev/infiniband/uverbs0 --device=/dev/infiniband/rdma_cm"
                + " (Kubernetes: an RDMA device plugin)";
        if (uverbs.isEmpty()) {
            findings.add(Finding.fail("uverbs", "no " + DIR + "/uverbs* device",
                    "sudo modprobe ib_uverbs (the rdma-core package loads it at boot)" + container, Fixes.HARDWARE));
        } else {
            findings.add(access(paths, "uverbs", uverbs.stream().map(n -> DIR + "/" + n).toList()));
        }
        if (!paths.exists(DIR + "/rdma_cm")) {
            findings.add(Finding.fail("rdma_cm", "no " + DIR + "/rdma_cm device",
                    "sudo modprobe rdma_ucm (the rdma-core package loads it at boot)" + container, Fixes.HARDWARE));
        } else {
            findings.add(access(paths, "rdma_cm", List.of(DIR + "/rdma_cm")));
        }
        return findings;
    }

    private static Finding access(HostPaths paths, String topic, List<String> files) {
        List<String> denied = new ArrayList<>();
        for (String file : files) {
            Path p = paths.resolve(file);
            if (!Files.isReadable(p) || !Files.isWritable(p)) {
                denied.add(file);
            }
        }
        if (!denied.isEmpty()) {
            return Finding.fail(topic, "not readable and writable by this user: " + String.join(", ", denied),
                    "rdma-core's udev rules make them mode 0666; check them with ls -l " + DIR
                            + " and fix the rules or the group (some distributions use a group rdma)", Fixes.HARDWARE);
        }
        return Finding.ok(topic, String.join(", ", files));
    }
}
