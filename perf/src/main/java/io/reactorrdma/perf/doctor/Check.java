package io.reactorrdma.perf.doctor;

import java.util.List;

/** One thing the doctor checks; it reads the host and returns its report lines (at least one). */
interface Check {

    /** The lines of this check, in the order they are printed. */
    List<Finding> run(Host host);
}
