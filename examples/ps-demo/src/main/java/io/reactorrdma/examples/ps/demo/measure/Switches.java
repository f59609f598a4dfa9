package io.reactorrdma.examples.ps.demo.measure;

/**
 * Context switches (voluntary + involuntary) some threads made over a window: of every thread of
 * the processes measured ({@code all}) and of the I/O threads among them ({@code io}); both -1
 * when they could not be read (no {@code /proc}: not Linux; shards on other hosts).
 */
public record Switches(long all, long io) {

    /** Not measured. */
    public static final Switches UNKNOWN = new Switches(-1, -1);

    public Switches {
        if ((all < 0 || io < 0) && (all != -1 || io != -1)) {
            throw new IllegalArgumentException("switches are both known or both -1, got all=" + all + " io=" + io);
        }
        if (io > all) {
            throw new IllegalArgumentException("the I/O threads' " + io + " switches exceed all threads' " + all);
        }
    }

    /** Whether they were measured. */
    public boolean known() {
        return all >= 0;
    }

    /** Both windows together; unknown when either is. */
    public Switches plus(Switches other) {
        return known() && other.known() ? new Switches(all + other.all, io + other.io) : UNKNOWN;
    }

    /** All threads' switches per {@code units}; NaN when unknown or no unit. */
    public double allPer(long units) {
        return known() && units > 0 ? all / (double) units : Double.NaN;
    }

    /** The I/O threads' switches per {@code units}; NaN when unknown or no unit. */
    public double ioPer(long units) {
        return known() && units > 0 ? io / (double) units : Double.NaN;
    }
}
