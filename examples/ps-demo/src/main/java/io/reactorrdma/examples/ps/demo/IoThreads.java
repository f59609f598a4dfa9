package io.reactorrdma.examples.ps.demo;

import io.reactorrdma.examples.ps.demo.measure.ThreadNames;
import io.reactorrdma.examples.ps.shard.ShardMain;

import java.util.ArrayList;
import java.util.List;

/**
 * Which threads carry a transport's I/O, picked by comm (the thread name Linux shows, cut to 15
 * bytes: {@link ThreadNames} compares each prefix cut the same way). Over RDMA: the engine's
 * I/O threads, which {@code RdmaResources} names {@code <resources name>-io-<n>} (a shard's
 * resources are {@link ShardMain#resourcesName}, this JVM's {@link DemoRun#MAIN_RESOURCES}). Over
 * TCP: Reactor Netty's event loops, {@code reactor-tcp-<kind>-<n>} for its native and NIO kinds,
 * and {@code reactor-tcp-select-<kind>-<n>} where a server's accept loops are apart (both sides of
 * the demo's TCP use Reactor Netty's default {@code reactor-tcp} loops).
 */
final class IoThreads {

    /** What {@code RdmaResources} puts between its name and an I/O thread's number. */
    static final String RDMA_IO = "-io-";
    /** The name prefixes of Reactor Netty's TCP event-loop threads. */
    static final List<String> TCP_EVENT_LOOPS = List.of("reactor-tcp-epoll-", "reactor-tcp-nio-", "reactor-tcp-io_uring-",
            "reactor-tcp-kqueue-", "reactor-tcp-select-");

    private IoThreads() {
    }

    /** The shards' I/O threads over {@code transport} ({@code rdma} or {@code tcp}) for {@code shards} shards. */
    static ThreadNames shards(String transport, int shards) {
        if (transport.equals("tcp")) {
            return ThreadNames.startingWith(TCP_EVENT_LOOPS);
        }
        List<String> prefixes = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            prefixes.add(ShardMain.resourcesName(s) + RDMA_IO);
        }
        return ThreadNames.startingWith(prefixes);
    }

    /** This JVM's I/O threads over {@code transport}: over RDMA those of the resources named {@code resources}. */
    static ThreadNames ranker(String transport, String resources) {
        return transport.equals("tcp") ? ThreadNames.startingWith(TCP_EVENT_LOOPS) : ThreadNames.startingWith(resources + RDMA_IO);
    }
}
