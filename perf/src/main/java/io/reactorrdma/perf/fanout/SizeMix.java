package io.reactorrdma.perf.fanout;

import java.util.Locale;
import java.util.SplittableRandom;
import java.util.StringJoiner;

/**
 * The payload sizes of fan-out sub-requests: KB to MB with a heavy tail, like the RPC sizes of
 * the parameter-server workloads the paper measures (small key and gradient slices are most
 * calls, whole-tensor pulls carry most bytes). Each sub-request draws its size independently:
 * 4 KiB 40 %, 16 KiB 25 %, 64 KiB 20 %, 256 KiB 10 %, 1 MiB 5 % (mean 95.2 KiB). The server
 * echoes the request, so each size crosses the transport once each way.
 */
final class SizeMix {

    /** The sizes, smallest first. */
    static final int[] SIZES = {4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20};
    /** Each size's share in percent; they add up to 100. */
    static final int[] PERCENT = {40, 25, 20, 10, 5};

    private SizeMix() {
    }

    /** One size drawn from the mix. */
    static int draw(SplittableRandom random) {
        int r = random.nextInt(100);
        for (int i = 0; i < SIZES.length; i++) {
            r -= PERCENT[i];
            if (r < 0) {
                return SIZES[i];
            }
        }
        return SIZES[SIZES.length - 1];
    }

    /** The largest size: what a payload template must hold. */
    static int max() {
        return SIZES[SIZES.length - 1];
    }

    /** The expected size of one sub-request in bytes. */
    static double meanBytes() {
        double sum = 0;
        for (int i = 0; i < SIZES.length; i++) {
            sum += SIZES[i] * (PERCENT[i] / 100.0);
        }
        return sum;
    }

    /** The mix as text, e.g. {@code 4k 40%, 16k 25%, ...}. */
    static String describe() {
        StringJoiner j = new StringJoiner(", ");
        for (int i = 0; i < SIZES.length; i++) {
            int s = SIZES[i];
            j.add((s >= 1 << 20 ? (s >> 20) + "m" : (s >> 10) + "k") + " " + PERCENT[i] + "%");
        }
        return j + String.format(Locale.ROOT, " (mean %.1f KiB)", meanBytes() / 1024);
    }
}
