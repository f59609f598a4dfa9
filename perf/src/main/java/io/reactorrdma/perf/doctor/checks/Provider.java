package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.ITypeConverter;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The providers the doctor judges ({@code --provider}); their names are those of {@code reactor.rdma.provider}. */
public enum Provider {
    /** What {@code auto} opens: disni where libdisni and a device are present, else shm. */
    AUTO(true),
    /** RoCE and InfiniBand through DiSNI's libdisni (JDK 17+). */
    DISNI(true),
    /** The software RNIC across processes on one host, through files under /dev/shm. */
    SHM(true),
    /** rdma-core through the JDK's Foreign Function &amp; Memory API (JDK 22+): planned, not in this release. */
    FFM(false);

    private final boolean inRelease;

    Provider(boolean inRelease) {
        this.inRelease = inRelease;
    }

    /** The name as {@code reactor.rdma.provider} and {@code --provider} write it. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether this release has the provider. */
    public boolean inRelease() {
        return inRelease;
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
