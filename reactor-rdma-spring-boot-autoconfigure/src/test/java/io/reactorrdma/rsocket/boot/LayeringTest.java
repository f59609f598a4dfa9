package io.reactorrdma.rsocket.boot;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The Boot auto-configuration's place in the layering (README, "Layering"). */
@AnalyzeClasses(packages = "io.reactorrdma.rsocket.boot", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    @ArchTest
    static final ArchRule bootSpeaksThePublicApi = noClasses().that().resideInAPackage("io.reactorrdma.rsocket.boot..")
            .should().dependOnClassesThat().resideInAnyPackage("io.reactorrdma.engine..", "io.reactorrdma.memory..",
                    "io.reactorrdma.verbs.soft..", "io.reactorrdma.verbs.disni..")
            .because("the auto-configuration turns reactor.rdma.* properties into the public settings (io.reactorrdma.config) "
                    + "and reads health through RdmaResources.statistics(): the engine, the allocator's insides and the "
                    + "providers may change without breaking Boot applications");
}
