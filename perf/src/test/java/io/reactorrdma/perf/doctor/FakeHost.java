package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.checks.Checks;
import io.reactorrdma.perf.doctor.checks.Finding;
import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.HostPaths;
import io.reactorrdma.perf.doctor.host.JvmFacts;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A host tree for the doctor's {@code --root}, built in a test's directory: by default a good RoCE host (one mlx5-like
 * device, port 1 ACTIVE on Ethernet with a RoCE v2 IPv4 GID, MTU 9000, device files, rdma-core with the mlx5 driver,
 * unlimited memlock, /dev/shm a tmpfs, rdma_cm ToS 106 and RoCE v2, PFC readable, libdisni in /usr/local/lib); each
 * method changes one thing.
 */
final class FakeHost {

    static final String V1_LINK_LOCAL = "fe80:0000:0000:0000:0268:cafe:fe00:0001";
    static final String V2_IPV4 = "0000:0000:0000:0000:0000:ffff:0a00:0001";
    static final String ZERO = "0000:0000:0000:0000:0000:0000:0000:0000";

    final Path root;
    JvmFacts jvm = new JvmFacts(25, "25+36 (test)", List.of("/usr/local/lib"), List.of(), 64L << 20, "/dev/shm/reactor-rdma-test",
            "amd64", true);

    FakeHost(Path root) {
        this.root = root;
        port("mlx5_0", 1, "4: ACTIVE", "5: LinkUp", "Ethernet");
        gid("mlx5_0", 1, 0, V1_LINK_LOCAL, "IB/RoCE v1", "eth0");
        gid("mlx5_0", 1, 1, V1_LINK_LOCAL, "RoCE v2", "eth0");
        gid("mlx5_0", 1, 2, V2_IPV4, "IB/RoCE v1", "eth0");
        gid("mlx5_0", 1, 3, V2_IPV4, "RoCE v2", "eth0");
        write("sys/class/infiniband/mlx5_0/ports/1/gids/4", ZERO);
        write("sys/class/net/eth0/mtu", "9000");
        write("sys/class/net/eth0/qos/pfc", "Priority 3: enabled\n");
        write("sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "106");
        write("sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode", "RoCE v2");
        write("dev/infiniband/uverbs0", "");
        write("dev/infiniband/rdma_cm", "");
        write("usr/lib/x86_64-linux-gnu/libibverbs.so.1", "");
        write("usr/lib/x86_64-linux-gnu/librdmacm.so.1", "");
        write("usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so", "");
        memlock("unlimited", "unlimited");
        write("proc/mounts", "overlay / overlay rw 0 0\ntmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0\n");
        mkdirs("dev/shm");
        write("usr/local/lib/libdisni.so", "");
    }

    FakeHost port(String device, int n, String state, String phys, String linkLayer) {
        String dir = "sys/class/infiniband/" + device + "/ports/" + n + "/";
        write(dir + "state", state);
        write(dir + "phys_state", phys);
        write(dir + "link_layer", linkLayer);
        write(dir + "rate", "100 Gb/sec (4X EDR)");
        mkdirs(dir + "gids");
        return this;
    }

    FakeHost gid(String device, int port, int index, String address, String type, String netdev) {
        String dir = "sys/class/infiniband/" + device + "/ports/" + port + "/";
        write(dir + "gids/" + index, address);
        write(dir + "gid_attrs/types/" + index, type);
        if (netdev != null) {
            write(dir + "gid_attrs/ndevs/" + index, netdev);
        }
        return this;
    }

    /** Every GID of the port gone (all zeros), as on a RoCE port whose interface has no address. */
    FakeHost noGids(String device, int port) {
        Path gids = root.resolve("sys/class/infiniband/" + device + "/ports/" + port + "/gids");
        for (String name : names(gids)) {
            write(root.relativize(gids.resolve(name)).toString(), ZERO);
        }
        return this;
    }

    FakeHost memlock(String soft, String hard) {
        write("proc/self/limits", "Limit                     Soft Limit           Hard Limit           Units     \n"
                + "Max open files            1048576              1048576              files     \n"
                + "Max locked memory         " + soft + "              " + hard + "              bytes     \n");
        return this;
    }

    FakeHost write(String relative, String text) {
        try {
            Path p = root.resolve(relative);
            Files.createDirectories(p.getParent());
            Files.writeString(p, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    FakeHost delete(String relative) {
        try {
            Path p = root.resolve(relative);
            if (Files.isDirectory(p)) {
                try (var walk = Files.walk(p)) {
                    for (Path q : walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                        Files.delete(q);
                    }
                }
            } else {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    FakeHost mkdirs(String relative) {
        try {
            Files.createDirectories(root.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    Host host() {
        return new Host(HostPaths.under(root), jvm);
    }

    List<Finding> findings() {
        return Checks.run(host());
    }

    /** {@code doctor --root <root> args...}: its exit status and output. */
    Run doctor(String... args) {
        List<String> all = new ArrayList<>(List.of("--root", root.toString()));
        all.addAll(List.of(args));
        return Run.of(jvm, all.toArray(String[]::new));
    }

    private static List<String> names(Path dir) {
        try (var list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One run of the command: exit status, standard output and standard error. */
    record Run(int exit, String out, String err) {

        static Run of(JvmFacts jvm, String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = DoctorCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), jvm);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }

        /** The report's line about {@code topic} (status, topic, found), or an assertion error. */
        String line(String topic) {
            return out.lines().filter(l -> l.matches("(OK|WARN|FAIL) +" + java.util.regex.Pattern.quote(topic) + " .*"))
                    .findFirst().orElseThrow(() -> new AssertionError("no line about " + topic + " in:\n" + out));
        }

        /** The fix printed under the line about {@code topic}. */
        String fix(String topic) {
            List<String> lines = out.lines().toList();
            int i = lines.indexOf(line(topic));
            String next = i + 1 < lines.size() ? lines.get(i + 1).trim() : "";
            if (!next.startsWith("fix: ")) {
                throw new AssertionError("no fix under the line about " + topic + " in:\n" + out);
            }
            return next;
        }

        List<String> lines(String status) {
            return out.lines().filter(l -> l.startsWith(status + " ")).toList();
        }
    }
}
