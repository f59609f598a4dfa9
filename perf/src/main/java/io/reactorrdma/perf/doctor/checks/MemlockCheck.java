package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Bytes;
import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.MemlockLimit;
import io.reactorrdma.perf.doctor.host.PoolNeed;

import java.util.List;
import java.util.Optional;

/**
 * The locked-memory limit against what the hardware providers pin: at least the disni provider's floor
 * ({@code reactor.rdma.disni.minMemlock}, 64 MiB) and what the default pools register ({@link PoolNeed}). The limit
 * read is this process's: run the doctor the way the application is started (same user, shell, unit or container).
 * shm pins nothing.
 */
public final class MemlockCheck implements Check {

    public static final String RAISE = "raise the hard limit where the JVM is started, unlimited is simplest: login shells: a line"
            + " '<user> - memlock unlimited' in /etc/security/limits.conf (log in again); systemd: LimitMEMLOCK=infinity in the"
            + " unit's [Service]; docker: docker run --ulimit memlock=-1; then ulimit -l unlimited in the starting shell";

    private final PoolNeed pools;

    public MemlockCheck(PoolNeed pools) {
        this.pools = pools;
    }

    @Override
    public List<Finding> run(Host host) {
        Optional<MemlockLimit> read = MemlockLimit.read(host.paths());
        if (read.isEmpty()) {
            return List.of(Finding.warn("memlock", "unknown: \"Max locked memory\" not readable in " + MemlockLimit.LIMITS,
                    "check ulimit -l (KiB) in the shell that starts the JVM: disni needs at least " + Bytes.shown(need(host))));
        }
        MemlockLimit limit = read.get();
        long need = need(host);
        String floor = host.jvm().minMemlock() >= need ? "its floor, reactor.rdma.disni.minMemlock"
                : "for the default pools; its floor is " + Bytes.shown(host.jvm().minMemlock()) + ", reactor.rdma.disni.minMemlock";
        String found = MemlockLimit.shown(limit.soft()) + " (hard " + MemlockLimit.shown(limit.hard()) + "); disni needs at least "
                + Bytes.shown(need) + " (" + floor + "); " + pools.shown();
        if (limit.soft() >= need) {
            String room = limit.soft() == MemlockLimit.UNLIMITED ? "" : "; room for about "
                    + Math.max(1, 1 + (limit.soft() - pools.oneConnection()) / pools.perClient()) + " client connections at rest";
            return List.of(Finding.ok("memlock", found + room));
        }
        String fix = limit.hard() >= need
                ? "ulimit -l " + (limit.hard() == MemlockLimit.UNLIMITED ? "unlimited" : Long.toString(limit.hard() / 1024))
                        + " (KiB; at least " + need / 1024 + ") in the shell that starts the JVM: the hard limit allows it"
                : RAISE;
        return List.of(Finding.fail("memlock", found, fix, Fixes.HARDWARE));
    }

    private long need(Host host) {
        return Math.max(host.jvm().minMemlock(), pools.oneConnection());
    }
}
