package io.reactorrdma.verbs.disni;

import io.reactorrdma.verbs.ProviderUnavailableException;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link DisniEnvironment#probe()} found: each field is null when that piece is in order, else
 * a message that says what is missing and how to fix it.
 *
 * @param libraryProblem libdisni (or a library it needs) did not load
 * @param devices        RDMA devices under {@code /sys/class/infiniband}; empty when there is none
 * @param deviceProblem  why no device was found
 * @param memlockProblem the locked-memory limit is below what registration needs
 * @param exportsProblem {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED} is missing
 * @param loggingProblem slf4j-api, which DiSNI logs through, is not on the class path
 */
public record DisniProbe(String libraryProblem, List<String> devices, String deviceProblem,
                         String memlockProblem, String exportsProblem, String loggingProblem) {

    public DisniProbe {
        devices = List.copyOf(devices);
    }

    /**
     * Whether RDMA hardware is usable in principle: libdisni loads and a device exists. This is
     * what {@code auto} decides on; the JVM settings ({@link #problems()}) are then checked when
     * the provider opens, so a misconfigured RDMA host fails loudly instead of silently running soft.
     */
    public boolean hardwarePresent() {
        return libraryProblem == null && deviceProblem == null;
    }

    /** Every problem found, in the order to fix them; empty when the provider can open. */
    public List<String> problems() {
        List<String> p = new ArrayList<>(5);
        if (libraryProblem != null) {
            p.add(libraryProblem);
        }
        if (deviceProblem != null) {
            p.add(deviceProblem);
        }
        if (exportsProblem != null) {
            p.add(exportsProblem);
        }
        if (memlockProblem != null) {
            p.add(memlockProblem);
        }
        if (loggingProblem != null) {
            p.add(loggingProblem);
        }
        return p;
    }

    /** Throws, listing every problem, unless the disni provider can open here. */
    public void requireUsable() {
        List<String> p = problems();
        if (!p.isEmpty()) {
            StringBuilder sb = new StringBuilder("provider 'disni' is unavailable:");
            for (int i = 0; i < p.size(); i++) {
                sb.append("\n  ").append(i + 1).append(". ").append(p.get(i));
            }
            sb.append("\nSee docs/HARDWARE.md. Without RDMA hardware use provider 'shm' (across processes) or 'loopback' (one JVM).");
            throw new ProviderUnavailableException(sb.toString());
        }
    }

    /** One line for logs: the devices found, or the first problem. */
    public String summary() {
        List<String> p = problems();
        return p.isEmpty() ? "disni usable, devices " + devices : p.get(0);
    }
}
