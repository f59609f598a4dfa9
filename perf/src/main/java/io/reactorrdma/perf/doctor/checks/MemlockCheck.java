package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Bytes;
import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.MemlockLimit;
import io.reactorrdma.perf.doctor.host.PoolNeed;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The locked-memory limit against what each hardware provider pins. ffm has no floor of its own: it needs what the
 * default pools register ({@link PoolNeed}, about 26 MiB for one connection). disni refuses to open below its floor
 * ({@code reactor.rdma.disni.minMemlock}, 64 MiB), and needs the pools too. One line: OK when both fit, else FAIL
 * blocking the providers the limit is too low for (disni alone when the limit lies between the two needs). The limit
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
        long ffm = ffmNeed();
        long disni = disniNeed(host);
        Optional<MemlockLimit> read = MemlockLimit.read(host.paths());
        if (read.isEmpty()) {
            return List.of(Finding.warn("memlock", "unknown: \"Max locked memory\" not readable in " + MemlockLimit.LIMITS,
                    "check ulimit -l (KiB) in the shell that starts the JVM: disni needs at least " + Bytes.shown(disni)
                            + ", ffm about " + Bytes.shown(ffm)));
        }
        MemlockLimit limit = read.get();
        String floor = host.jvm().minMemlock() >= pools.oneConnection() ? "its floor, reactor.rdma.disni.minMemlock"
                : "for the default pools; its floor is " + Bytes.shown(host.jvm().minMemlock()) + ", reactor.rdma.disni.minMemlock";
        String needs = "disni needs at least " + Bytes.shown(disni) + " (" + floor + "), ffm about " + Bytes.shown(ffm)
                + " (no floor of its own: only what the pools register); " + pools.shown();
        String shown = MemlockLimit.shown(limit.soft()) + " (hard " + MemlockLimit.shown(limit.hard()) + ")";
        if (limit.soft() >= disni) { // disni needs at least what ffm does: the pools
            String room = limit.soft() == MemlockLimit.UNLIMITED ? "" : "; room for about "
                    + Math.max(1, 1 + (limit.soft() - pools.oneConnection()) / pools.perClient()) + " client connections at rest";
            return List.of(Finding.ok("memlock", shown + "; " + needs + room));
        }
        boolean ffmFits = limit.soft() >= ffm;
        Set<Provider> blocked = ffmFits ? EnumSet.of(Provider.DISNI) : EnumSet.of(Provider.DISNI, Provider.FFM);
        String verdict = ffmFits ? "enough for ffm, not for disni" : "too low for disni and ffm";
        String forWhom = ffmFits ? " for disni" : "";
        String fix = limit.hard() >= disni
                ? "ulimit -l " + (limit.hard() == MemlockLimit.UNLIMITED ? "unlimited" : Long.toString(limit.hard() / 1024))
                        + " (KiB; at least " + disni / 1024 + forWhom + ") in the shell that starts the JVM: the hard limit allows it"
                : RAISE;
        return List.of(Finding.fail("memlock", shown + ": " + verdict + "; " + needs, fix, blocked));
    }

    /** What the ffm provider pins: the default pools; it checks no floor when it opens. */
    private long ffmNeed() {
        return pools.oneConnection();
    }

    /** What the disni provider needs: its floor, which it checks when it opens, and at least the pools. */
    private long disniNeed(Host host) {
        return Math.max(host.jvm().minMemlock(), pools.oneConnection());
    }
}
