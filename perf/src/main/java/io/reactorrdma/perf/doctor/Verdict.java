package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.checks.Finding;
import io.reactorrdma.perf.doctor.checks.JdkCheck;
import io.reactorrdma.perf.doctor.checks.RdmaCoreCheck;
import io.reactorrdma.perf.doctor.host.LibraryDirs;
import io.reactorrdma.perf.doctor.checks.LibdisniCheck;
import io.reactorrdma.perf.doctor.checks.Provider;
import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.RdmaPorts;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which providers can run, from the findings: a provider can run when no line blocks it (a FAIL, or the WARN of a JDK
 * below 22 for ffm); {@code auto} opens what the
 * provider selection would (ffm where the JDK is 22+, rdma-core's libraries are found and sysfs lists a device; then
 * disni where libdisni is on java.library.path and sysfs lists a device; else shm) and can run when that provider can:
 * with hardware present, a problem of the hardware provider is an error, not a fall-back. ffm is judged as if the
 * reactor-rdma-verbs-ffm jar were on the application's class path (without it, auto skips ffm).
 *
 * @param judged   the provider asked about ({@code --provider})
 * @param chosen   the provider that would open: {@code judged}, or what {@code auto} picks
 * @param why      why {@code auto} picks {@code chosen}; empty for the others
 * @param blockers per provider of this release, the topics of the lines that keep it from running
 */
public record Verdict(Provider judged, Provider chosen, String why, Map<Provider, List<String>> blockers) {

    public Verdict {
        blockers = Map.copyOf(blockers);
    }

    /** The verdict on {@code judged} from {@code findings} of {@code host}. */
    public static Verdict of(Provider judged, Host host, List<Finding> findings) {
        Map<Provider, List<String>> blockers = new EnumMap<>(Provider.class);
        for (Provider p : Provider.values()) {
            if (p == Provider.AUTO) {
                continue;
            }
            Set<String> topics = new LinkedHashSet<>();
            for (Finding f : findings) {
                if (f.blocks().contains(p)) {
                    topics.add(f.topic());
                }
            }
            blockers.put(p, new ArrayList<>(topics));
        }
        if (judged != Provider.AUTO) {
            return new Verdict(judged, judged, "", blockers);
        }
        boolean device = !RdmaPorts.devices(host.paths()).isEmpty();
        boolean rdmaCore = RdmaCoreCheck.LIBRARIES.stream().allMatch(lib -> LibraryDirs.find(host, lib).isPresent());
        if (device && rdmaCore && host.jvm().feature() >= JdkCheck.FFM_FEATURE) {
            return new Verdict(judged, Provider.FFM, "JDK " + host.jvm().feature() + ", rdma-core's libraries and an RDMA device"
                    + " are present; with reactor-rdma-verbs-ffm on the class path", blockers);
        }
        boolean libdisni = LibdisniCheck.onLibraryPath(host).isPresent();
        if (device && libdisni) {
            return new Verdict(judged, Provider.DISNI, "libdisni is on java.library.path and sysfs lists an RDMA device", blockers);
        }
        String missing = !device && !libdisni ? "no RDMA device and no libdisni" : !device ? "no RDMA device" : "no libdisni";
        return new Verdict(judged, Provider.SHM, missing, blockers);
    }

    /** Whether {@code p} (not auto) can run here. */
    public boolean canRun(Provider p) {
        return blockers.getOrDefault(p, List.of()).isEmpty();
    }

    /** Whether the judged provider can run: the exit status follows it. */
    public boolean canRun() {
        return canRun(chosen);
    }
}
