package io.reactorrdma.examples.ps;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** An example is what an application may do: it uses the public API only (README, "Layering"). */
@AnalyzeClasses(packages = "io.reactorrdma.examples.ps", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    @ArchTest
    static final ArchRule examplesUseThePublicApiOnly = noClasses().that().resideInAPackage("io.reactorrdma.examples.ps..")
            .should().dependOnClassesThat().resideInAnyPackage("io.reactorrdma.engine..", "io.reactorrdma.memory..",
                    "io.reactorrdma.verbs..", "io.reactorrdma.perf..")
            .because("the parameter-server demo shows what an application writes: reactor-rdma's public API (io.reactorrdma, "
                    + "io.reactorrdma.config), the RSocket transport and recovery, never the engine, the allocator's insides "
                    + "or a provider");
}
