package io.reactorrdma.rsocket.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Startup advice for a {@code reactor.rdma.*} value the library cannot use: an unknown provider, an invalid size. */
public class InvalidRdmaPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRdmaPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidRdmaPropertyException cause) {
        String description = "The RDMA setting '" + cause.getProperty() + "' is '" + cause.getValue() + "': " + cause.getReason() + ".";
        String action = cause.getProperty().equals("reactor.rdma.provider")
                ? "Set reactor.rdma.provider to one of auto (hardware where present, else shm), shm (processes on this host), "
                        + "loopback (within this JVM), soft (= shm) or disni (RoCE/InfiniBand hardware)."
                : "Correct '" + cause.getProperty() + "' in your configuration, or remove it to use the default "
                        + "(the configuration metadata in the reactor-rdma jar lists every reactor.rdma property with its default "
                        + "and description: your IDE completes and documents them).";
        return new FailureAnalysis(description, action, cause);
    }
}
