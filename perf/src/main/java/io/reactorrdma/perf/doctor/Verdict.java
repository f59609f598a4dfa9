package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.checks.Finding;
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
 * Which providers can run, from the findings: a provider of this release can run when no FAIL blocks it; {@code auto}
 * opens what the provider selection would (disni where libdisni is on java.library.path and sysfs lists a device, else
 * shm) and can run when that provider can: with hardware present, a problem of disni is an error, not a fall-back.
 *
 * @param judged   the provider asked about ({@code --provider})
 * @param chosen   the provider that would open: {@code judged}, or what {@code auto} picks
 * @param why      why {@code auto} picks {@code chosen}; empty for the others
 * @param blockers per provider of this release, the topics of the FAIL lines that keep it from running
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
        boolean libdisni = LibdisniCheck.onLibraryPath(host).isPresent();
        if (device && libdisni) {
            return new Verdict(judged, Provider.DISNI, "libdisni is on java.library.path and sysfs lists an RDMA device", blockers);
        }
        String missing = !device && !libdisni ? "no RDMA device and no libdisni" : !device ? "no RDMA device" : "no libdisni";
        return new Verdict(judged, Provider.SHM, missing, blockers);
    }

    /** Whether {@code p} (not auto) can run here. */
    public boolean canRun(Provider p) {
        return p.inRelease() && blockers.getOrDefault(p, List.of()).isEmpty();
    }

    /** Whether the judged provider can run: the exit status follows it. */
    public boolean canRun() {
        return canRun(chosen);
    }
}
