package io.reactorrdma.perf.cli;

import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.ITypeConverter;

import java.util.List;
import java.util.Locale;

/** picocli's converters of a scenario run's values; each throws a {@link UsageException} that says what to write. */
final class PerfConverters {

    private PerfConverters() {
    }

    static final class Scenarios implements ITypeConverter<Scenario> {
        @Override
        public Scenario convert(String value) {
            return Scenario.parse(value);
        }
    }

    static final class Transports implements ITypeConverter<List<Transport>> {
        @Override
        public List<Transport> convert(String value) {
            return PerfOptions.parseTransports(value);
        }
    }

    static final class OneTransport implements ITypeConverter<Transport> {
        @Override
        public Transport convert(String value) {
            return Transport.parse(value.trim().toLowerCase(Locale.ROOT));
        }
    }

    static final class Size implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return PerfOptions.parseSize(value);
        }
    }

    static final class Duration implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            return PerfOptions.parseSeconds("--duration", value, false);
        }
    }

    static final class Warmup implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            return PerfOptions.parseSeconds("--warmup", value, true);
        }
    }

    static final class Polls implements ITypeConverter<List<PollMode>> {
        @Override
        public List<PollMode> convert(String value) {
            return PollMode.parseList(value);
        }
    }

    static final class Repeat implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return PerfOptions.parseRepeat(value);
        }
    }

    static final class Connections implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return PerfOptions.parseConnections(value);
        }
    }

    static final class Shards implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return PerfOptions.parseCount("--shards", value, PerfOptions.MAX_SHARDS);
        }
    }

    static final class Replicas implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return PerfOptions.parseCount("--replicas", value, PerfOptions.MAX_REPLICAS);
        }
    }

    static final class SlowReplica implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return PerfOptions.parseCount("--slow-replica", value, 60_000);
        }
    }

    static final class Clients implements ITypeConverter<FanoutClient> {
        @Override
        public FanoutClient convert(String value) {
            return FanoutClient.parse(value.trim().toLowerCase(Locale.ROOT));
        }
    }

    static final class Replies implements ITypeConverter<EchoReply> {
        @Override
        public EchoReply convert(String value) {
            return EchoReply.parse(value.trim().toLowerCase(Locale.ROOT));
        }
    }

    static final class Hedging implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return PerfOptions.parseOnOff("--hedging", value) ? "on" : "off";
        }
    }

    static final class HedgeQuantile implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            return PerfOptions.parseQuantile("--hedge-quantile", value);
        }
    }
}
