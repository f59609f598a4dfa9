package io.reactorrdma.examples.ps.demo.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The machine a run measured: host name, cores, the load averages ({@code /proc/loadavg}, as
 * {@code uptime} prints them; elsewhere the JVM's 1-minute figure) and the JVM. Figures from a
 * loaded machine are not comparable with an idle one's, so the report prints these beside them.
 *
 * @param host  the host name
 * @param cores available processors
 * @param load  load averages over 1, 5 and 15 minutes ("3.04, 4.07, 5.93"; one figure where /proc is missing)
 * @param jvm   java.vm.name and java.version
 * @param os    os.name, os.version and os.arch
 */
public record HostInfo(String host, int cores, String load, String jvm, String os) {

    /** This machine, now. */
    public static HostInfo now() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown";
        }
        return new HostInfo(host, Runtime.getRuntime().availableProcessors(), loadAverages(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
    }

    private static String loadAverages() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException | RuntimeException e) {
            double one = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return one < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", one);
        }
    }

    /** One line for the report: "host, 2 cores, load average 3.04, 4.07, 5.93 (1, 5, 15 min)". */
    public String line() {
        return host + ", " + cores + " cores, load average " + load + (load.contains(",") ? " (1, 5, 15 min)" : "")
                + "; " + jvm + "; " + os;
    }
}
