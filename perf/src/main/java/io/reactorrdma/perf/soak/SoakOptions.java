package io.reactorrdma.perf.soak;

import io.reactorrdma.tools.cli.UsageException;

import java.util.Locale;

/**
 * {@code soak [--duration 10m] [--connections 16] [--seed N] [--freeze-ms 2000] [--receive-cancel-share 0.1]
 * [--pause-ms 1]}: how long, how many connections, the seed of every random choice (sizes, actions,
 * cancels), how long the one server is frozen, the share of server connections that cancel their
 * receive part-way, and the pause between one connection's actions (keeps the CPU use modest).
 */
final class SoakOptions {

    long durationMillis = 10 * 60_000L;
    int connections = 16;
    long seed = System.nanoTime();
    long freezeMillis = 2000;
    double receiveCancelShare = 0.1;
    long pauseMillis = 1;

    static String help() {
        return "usage: soak [--duration 10m|90s|600] [--connections 16] [--seed N] [--freeze-ms 2000]"
                + " [--receive-cancel-share 0.1] [--pause-ms 1]\n"
                + "  Two forked soak servers over the shm fabric; the connections send random messages (0 B - 8 MiB),\n"
                + "  direct writes and random cancels; one server is frozen (SIGSTOP/SIGCONT) once, the other killed\n"
                + "  (SIGKILL) once and restarted. Exits 1 on any violation (corrupt or silently lost message, live\n"
                + "  buffers, files left in the run's shm directory, threads left).";
    }

    static SoakOptions parse(String[] args) {
        SoakOptions o = new SoakOptions();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new UsageException(name + " needs a value\n" + help());
            }
            String value = args[++i];
            try {
                switch (name) {
                    case "--duration": o.durationMillis = millis(value); break;
                    case "--connections": o.connections = Integer.parseInt(value); break;
                    case "--seed": o.seed = Long.parseLong(value); break;
                    case "--freeze-ms": o.freezeMillis = Long.parseLong(value); break;
                    case "--receive-cancel-share": o.receiveCancelShare = Double.parseDouble(value); break;
                    case "--pause-ms": o.pauseMillis = Long.parseLong(value); break;
                    default: throw new UsageException("unknown option " + name + "\n" + help());
                }
            } catch (NumberFormatException e) {
                throw new UsageException(name + " " + value + " is not a number\n" + help());
            }
        }
        if (o.durationMillis < 5000) {
            throw new UsageException("--duration must be at least 5s (the freeze and the kill need room), got " + o.durationMillis + " ms");
        }
        if (o.connections < 2) {
            throw new UsageException("--connections must be at least 2 (one goes to the server that is killed), got " + o.connections);
        }
        if (o.receiveCancelShare < 0 || o.receiveCancelShare > 1) {
            throw new UsageException("--receive-cancel-share must be within 0..1, got " + o.receiveCancelShare);
        }
        return o;
    }

    /** {@code 10m}, {@code 90s}, {@code 1500ms} or plain seconds. */
    static long millis(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.endsWith("ms")) return Long.parseLong(v.substring(0, v.length() - 2));
        if (v.endsWith("m")) return Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60_000);
        if (v.endsWith("s")) return Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000);
        return Math.round(Double.parseDouble(v) * 1000);
    }
}
