package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.ITypeConverter;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The providers the doctor judges ({@code --provider}); their names are those of {@code reactor.rdma.provider}. */
public enum Provider {
    /**
     * What {@code auto} opens: ffm where the JDK is 22+ and rdma-core and a device are present, then disni where libdisni
     * and a device are, else shm.
     */
    AUTO,
    /** RoCE and InfiniBand through DiSNI's libdisni (JDK 17+). */
    DISNI,
    /** The software RNIC across processes on one host, through files under /dev/shm. */
    SHM,
    /**
     * RoCE and InfiniBand through rdma-core, called with the JDK's Foreign Function &amp; Memory API (JDK 22+, the
     * reactor-rdma-verbs-ffm jar).
     */
    FFM;

    /** The name as {@code reactor.rdma.provider} and {@code --provider} write it. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static String ids() {
        return Arrays.stream(values()).map(Provider::id).collect(Collectors.joining("|"));
    }

    /** {@code --provider auto|disni|shm|ffm}, in any case. */
    public static final class Converter implements ITypeConverter<Provider> {
        @Override
        public Provider convert(String value) {
            for (Provider p : values()) {
                if (p.id().equalsIgnoreCase(value.trim())) {
                    return p;
                }
            }
            throw new UsageException("--provider " + value + " is not a provider the doctor judges; use one of " + ids());
        }
    }
}
