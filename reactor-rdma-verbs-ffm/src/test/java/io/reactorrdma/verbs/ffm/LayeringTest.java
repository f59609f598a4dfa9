package io.reactorrdma.verbs.ffm;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The FFM provider's layering: {@code abi} (struct layouts and constants) at the bottom, {@code rdmacore} (rdma-core's
 * objects through FFM) above it, {@code provider} (the verbs SPI over them) on top; of reactor-rdma it knows the SPI
 * only, as every provider: never the engine, the allocator or another provider.
 */
@AnalyzeClasses(packages = "io.reactorrdma", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    static final String ABI = "io.reactorrdma.verbs.ffm.abi..";
    static final String RDMACORE = "io.reactorrdma.verbs.ffm.rdmacore..";
    static final String PROVIDER = "io.reactorrdma.verbs.ffm.provider..";

    @ArchTest
    static final ArchRule theAbiIsTheBottom = classes().that().resideInAPackage(ABI)
            .should().onlyDependOnClassesThat().resideInAnyPackage(ABI, "java..")
            .because("the layouts and constants are declared from rdma-core's headers and need nothing else");

    @ArchTest
    static final ArchRule rdmaCoreKnowsNoSpi = classes().that().resideInAPackage(RDMACORE)
            .should().onlyDependOnClassesThat().resideInAnyPackage(ABI, RDMACORE, "java..")
            .because("rdma-core's objects through FFM are usable on their own (tests, the doctor, other providers)");

    @ArchTest
    static final ArchRule theProviderSpeaksTheSpiOnly = noClasses().that().resideInAPackage(PROVIDER)
            .should().dependOnClassesThat().resideInAnyPackage("io.reactorrdma", "io.reactorrdma.engine..",
                    "io.reactorrdma.memory..", "io.reactorrdma.verbs.soft..", "io.reactorrdma.verbs.disni..")
            .because("a provider implements the verbs SPI and knows neither the engine nor another provider");
}
