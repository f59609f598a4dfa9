package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;

import java.util.List;

/** One thing the doctor checks; it reads the host and returns its report lines (at least one). */
public interface Check {

    /** The lines of this check, in the order they are printed. */
    public List<Finding> run(Host host);
}
