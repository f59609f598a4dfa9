package io.reactorrdma.incast.cli;

import io.reactorrdma.incast.topology.Placement;
import io.reactorrdma.incast.sweep.Arm;
import io.reactorrdma.tools.cli.Sizes;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.ITypeConverter;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** picocli's converters of incast-sim's values; each throws a {@link UsageException} that says what to write. */
final class IncastConverters {

    private IncastConverters() {
    }

    /** {@code --window}'s sweep: the windows, ascending and without repeats, and whether {@code off} is in it. */
    record Windows(List<Long> bytes, boolean off) {
        Windows {
            bytes = List.copyOf(bytes);
        }

        static Windows defaults() {
            return new Windows(IncastOptions.defaultWindows(), true);
        }
    }

    /** {@code --window 8k,64k,off}. */
    static final class WindowList implements ITypeConverter<Windows> {
        @Override
        public Windows convert(String value) {
            List<Long> windows = new ArrayList<>();
            boolean off = false;
            for (String part : value.split(",")) {
                String p = part.trim().toLowerCase(Locale.ROOT);
                if (p.equals("off")) {
                    off = true;
                } else if (!p.isEmpty()) {
                    long w;
                    try {
                        w = Sizes.parse("--window", p, IncastOptions.MAX_WINDOW_BYTES);
                    } catch (UsageException e) {
                        throw e.getMessage().contains("suffix") ? new UsageException(e.getMessage() + ", or off") : e;
                    }
                    if (!windows.contains(w)) {
                        windows.add(w);
                    }
                }
            }
            if (windows.isEmpty() && !off) {
                throw new UsageException("--window is empty; give a comma list of sizes and/or off, e.g. 64k,256k,off");
            }
            windows.sort(null);
            return new Windows(windows, off);
        }
    }

    /** {@code --fragment 4k}. */
    static final class Fragment implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) Sizes.parse("--fragment", value, IncastOptions.MAX_WINDOW_BYTES);
        }
    }

    /** {@code --arms pfc,window}. */
    static final class ArmKinds implements ITypeConverter<Set<Arm.Kind>> {
        @Override
        public Set<Arm.Kind> convert(String value) {
            Set<Arm.Kind> kinds = EnumSet.noneOf(Arm.Kind.class);
            for (String part : value.split(",")) {
                String p = part.trim().toLowerCase(Locale.ROOT);
                if (p.isEmpty()) {
                    continue;
                }
                Arm.Kind kind = null;
                for (Arm.Kind k : Arm.Kind.values()) {
                    if (k.id().equals(p)) {
                        kind = k;
                    }
                }
                if (kind == null) {
                    throw new UsageException("unknown arm '" + part.trim() + "' in --arms; use a comma list of pfc, dcqcn, window");
                }
                kinds.add(kind);
            }
            if (kinds.isEmpty()) {
                throw new UsageException("--arms is empty; use a comma list of pfc, dcqcn, window");
            }
            return kinds;
        }
    }

    /** {@code --duration 50ms}: simulated time, at least 1 us. */
    static final class Duration implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return simulatedTime("--duration", value, 1_000_000);
        }
    }

    /** {@code --compute 1.5ms}: simulated time, 0 or more. */
    static final class Compute implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return simulatedTime("--compute", value, 0);
        }
    }

    /** {@code --mtu 4096}: one of RoCE's MTUs. */
    static final class Mtu implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            String v = value.trim();
            if (!Set.of("256", "512", "1024", "2048", "4096").contains(v)) {
                throw new UsageException("bad --mtu '" + v + "': use a RoCE MTU, one of 256, 512, 1024, 2048, 4096");
            }
            return Integer.parseInt(v);
        }
    }

    /** {@code --topology leaf-spine|one-switch}. */
    static final class Topology implements ITypeConverter<IncastOptions.TopologyKind> {
        @Override
        public IncastOptions.TopologyKind convert(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "leaf-spine" -> IncastOptions.TopologyKind.LEAF_SPINE;
                case "one-switch" -> IncastOptions.TopologyKind.ONE_SWITCH;
                default -> throw new UsageException("bad --topology '" + value.trim() + "': use leaf-spine or one-switch");
            };
        }
    }

    /** {@code --placement spread|clustered}. */
    static final class Placements implements ITypeConverter<Placement> {
        @Override
        public Placement convert(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "spread" -> Placement.SPREAD;
                case "clustered" -> Placement.CLUSTERED;
                default -> throw new UsageException("bad --placement '" + value.trim() + "': use spread or clustered");
            };
        }
    }

    /** Simulated time with a unit, {@code min} ps or more: {@code 50ms}, {@code 500us}, {@code 0.05s}, {@code 2000000ns}. */
    static long simulatedTime(String name, String text, long min) {
        String s = text.trim();
        String v = s.toLowerCase(Locale.ROOT);
        long psPerUnit;
        String number;
        if (v.endsWith("ms")) {
            psPerUnit = 1_000_000_000L;
            number = v.substring(0, v.length() - 2);
        } else if (v.endsWith("us")) {
            psPerUnit = 1_000_000L;
            number = v.substring(0, v.length() - 2);
        } else if (v.endsWith("ns")) {
            psPerUnit = 1_000L;
            number = v.substring(0, v.length() - 2);
        } else if (v.endsWith("s")) {
            psPerUnit = 1_000_000_000_000L;
            number = v.substring(0, v.length() - 1);
        } else {
            throw new UsageException("bad " + name + " '" + s + "': give simulated time with a unit, e.g. 50ms, 500us or 0.05s");
        }
        double d;
        try {
            d = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new UsageException("bad " + name + " '" + s + "': give simulated time with a unit, e.g. 50ms, 500us or 0.05s");
        }
        double ps = d * psPerUnit;
        if (!(ps >= min) || ps > IncastOptions.MAX_DURATION_PS) {
            throw new UsageException("bad " + name + " '" + s + "': must be " + (min == 0 ? "0" : "1us") + " .. 10s of simulated time");
        }
        return Math.round(ps);
    }
}
