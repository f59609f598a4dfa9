package io.reactorrdma;

import io.reactorrdma.engine.ThreadDomain;

/**
 * What tests read of {@link RdmaResources} beyond its public API: the thread domains, whose
 * metrics and switches a test checks directly. {@link RdmaResources#domains()} is package-private
 * so that the public API shows no engine type; tests in other packages and modules (through this
 * module's test jar) reach it here.
 */
public final class RdmaResourcesTestAccess {

    private RdmaResourcesTestAccess() {
    }

    /** The resources' thread domains, as {@link RdmaResources#domains()} gives them. */
    public static ThreadDomain[] domains(RdmaResources resources) {
        return resources.domains();
    }
}
