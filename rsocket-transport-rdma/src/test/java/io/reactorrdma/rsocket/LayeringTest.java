package io.reactorrdma.rsocket;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The layering of rsocket-transport-rdma (README, "Layering"): the transport on reactor-rdma's
 * public API, recovery on the transport, neither knowing Spring.
 */
@AnalyzeClasses(packages = "io.reactorrdma.rsocket", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    static final String TRANSPORT = "io.reactorrdma.rsocket";
    /** Recovery: dual serving and TCP fallback, replicated shards, leases, fan-out. */
    static final String[] RECOVERY = {"io.reactorrdma.rsocket.fallback..", "io.reactorrdma.rsocket.shard..",
            "io.reactorrdma.rsocket.lease..", "io.reactorrdma.rsocket.fanout.."};
    static final String[] TRANSPORT_AND_RECOVERY = {TRANSPORT, "io.reactorrdma.rsocket.fallback..", "io.reactorrdma.rsocket.shard..",
            "io.reactorrdma.rsocket.lease..", "io.reactorrdma.rsocket.fanout.."};

    @ArchTest
    static final ArchRule theTransportDoesNotKnowRecovery = noClasses().that().resideInAPackage(TRANSPORT)
            .should().dependOnClassesThat().resideInAnyPackage(RECOVERY)
            .because("the transport is RSocket's ClientTransport and ServerTransport over RDMA; recovery builds on it, "
                    + "and an application that needs no recovery carries none");

    @ArchTest
    static final ArchRule neitherKnowsSpring = noClasses().that().resideInAnyPackage(TRANSPORT_AND_RECOVERY)
            .should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "io.reactorrdma.rsocket.boot..")
            .because("the transport and recovery work without Spring; the Boot auto-configuration builds on them");

    @ArchTest
    static final ArchRule bothSpeakThePublicApi = noClasses().that().resideInAnyPackage(TRANSPORT_AND_RECOVERY)
            .should().dependOnClassesThat().resideInAnyPackage("io.reactorrdma.engine..", "io.reactorrdma.verbs.soft..",
                    "io.reactorrdma.verbs.disni..")
            .because("the transport and recovery speak reactor-rdma's public API and its settings (io.reactorrdma.config), "
                    + "never the engine or a provider, which may change under them");
}
