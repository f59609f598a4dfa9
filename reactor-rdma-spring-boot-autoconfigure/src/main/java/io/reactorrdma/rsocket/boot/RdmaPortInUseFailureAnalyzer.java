package io.reactorrdma.rsocket.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Startup advice when the RSocket server's RDMA or TCP port is taken. */
public class RdmaPortInUseFailureAnalyzer extends AbstractFailureAnalyzer<RdmaPortInUseException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RdmaPortInUseException cause) {
        String property = cause.getTransport().equals("TCP") ? "reactor.rdma.rsocket.server.tcp-port" : "reactor.rdma.rsocket.server.port";
        String description = "The RSocket server could not start: " + cause.getTransport() + " port " + cause.getPort()
                + " (" + property + ") is already in use (" + cause.getCause().getMessage() + ").";
        String action = "Stop the process that holds port " + cause.getPort() + ", or set " + property
                + " to another port (0 picks a free one).";
        return new FailureAnalysis(description, action, cause);
    }
}
