package io.reactorrdma.examples.ps.demo;

import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The {@code demo} command's options as picocli reads them, before the defaults are applied: an option not given
 * stays null ({@link DemoOptions} applies the defaults, {@code --quick}'s where it is given, and checks them together).
 */
@Command(name = "demo", sortOptions = false, description = "runs the parameter-server demo and writes its report")
final class DemoArguments {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
    boolean help;

    @Option(names = "--quick", description = "about 30 s in all: " + DemoOptions.QUICK_SHARDS + " shards, " + DemoOptions.QUICK_RANKERS
            + " rankers, " + DemoOptions.QUICK_TRAINERS + " trainers, 3 s per arm")
    boolean quick;

    @Option(names = "--shards", paramLabel = "N",
            description = "shards, each a separate process per replica (default " + DemoOptions.DEFAULT_SHARDS + ")")
    Integer shards;

    @Option(names = "--replicas", paramLabel = "N", description = "replicas per shard, at least 2 (default "
            + DemoOptions.DEFAULT_REPLICAS + ")")
    Integer replicas;

    @Option(names = "--rankers", paramLabel = "N",
            description = "outstanding user requests of the inference workload (default " + DemoOptions.DEFAULT_RANKERS + ")")
    Integer rankers;

    @Option(names = "--trainers", paramLabel = "N", description = "trainers pushing at once (default " + DemoOptions.DEFAULT_TRAINERS + ")")
    Integer trainers;

    @Option(names = "--duration", paramLabel = "D", converter = Durations.class,
            description = "measured time of each arm, e.g. 15s, 500ms (default 15s)")
    Duration duration;

    @Option(names = "--transports", paramLabel = "LIST", converter = Transports.class, description = "rdma,tcp or rdma (default rdma,tcp)")
    List<String> transports;

    @Option(names = "--provider", paramLabel = "P", converter = Provider.class,
            description = "shm (processes on this host, default) or disni (RDMA hardware)")
    String provider;

    @Option(names = "--hosts", paramLabel = "LIST", converter = Hosts.class, description = {
            "host:rdmaPort:tcpPort per replica (shard 0's replicas first): use shards started",
            "by hand on those hosts; the demo prints the commands; no replica is killed"})
    List<InetSocketAddress[]> hosts;

    @Option(names = "--out", paramLabel = "DIR", description = "the report's directory (default demo-report/)")
    Path out;

    /** {@code --duration}. */
    static final class Durations implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return DemoOptions.duration("--duration", value);
        }
    }

    /** {@code --transports}. */
    static final class Transports implements ITypeConverter<List<String>> {
        @Override
        public List<String> convert(String value) {
            return DemoOptions.transports(value);
        }
    }

    /** {@code --provider}. */
    static final class Provider implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return DemoOptions.provider(value);
        }
    }

    /** {@code --hosts}. */
    static final class Hosts implements ITypeConverter<List<InetSocketAddress[]>> {
        @Override
        public List<InetSocketAddress[]> convert(String value) {
            return DemoOptions.hosts(value);
        }
    }
}
