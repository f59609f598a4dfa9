package io.reactorrdma;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The layering of reactor-rdma as rules on its imports (README, "Layering"): from the bottom, the
 * settings ({@code config}) and the verbs SPI ({@code verbs}, {@code verbs.work}, {@code verbs.provider}; with
 * {@code verbs.work.tracking}, the hardware providers' shared bookkeeping of posted work), the providers beside
 * each other (each with its lower sub-packages), the allocator,
 * the engine, the public API on top; backpressure beside them with no RDMA types. A wrong import
 * fails the build here, naming the class and the dependency.
 */
@AnalyzeClasses(packages = "io.reactorrdma", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    static final String API = "io.reactorrdma";
    static final String CONFIG = "io.reactorrdma.config..";
    /** The verbs SPI: its resources, what is posted and polled, and the provider selection. */
    static final String[] SPI = {"io.reactorrdma.verbs", "io.reactorrdma.verbs.work..", "io.reactorrdma.verbs.provider.."};
    static final String SOFT = "io.reactorrdma.verbs.soft..";
    static final String DISNI = "io.reactorrdma.verbs.disni..";
    static final String MEMORY = "io.reactorrdma.memory..";
    static final String ENGINE = "io.reactorrdma.engine..";
    static final String FLOW = "io.reactorrdma.backpressure..";

    @ArchTest
    static final ArchRule settingsDependOnNothingOfTheLibrary = noClasses().that().resideInAPackage(CONFIG)
            .should().dependOnClassesThat().resideInAnyPackage(API, "io.reactorrdma.verbs..", MEMORY, ENGINE, FLOW)
            .because("the settings are what every layer (and every user) reads: reading them must not pull in "
                    + "the engine, the allocator or a provider");

    @ArchTest
    static final ArchRule theSpiIsTheBottomLayer = noClasses().that().resideInAnyPackage(SPI)
            .should().dependOnClassesThat().resideInAnyPackage(API, MEMORY, ENGINE, SOFT, DISNI)
            .because("the verbs SPI is the bottom layer: a provider registers itself (META-INF/services), "
                    + "so the SPI names none and a new provider needs no change to it");

    @ArchTest
    static final ArchRule theSoftProviderNeverLoadsDisni = noClasses().that().resideInAPackage(SOFT)
            .should().dependOnClassesThat().resideInAPackage(DISNI)
            .because("providers are independent: an application on shm must never need DiSNI or its JVM flags");

    @ArchTest
    static final ArchRule disniNeverUsesTheSoftProvider = noClasses().that().resideInAPackage(DISNI)
            .should().dependOnClassesThat().resideInAPackage(SOFT)
            .because("providers are independent: the hardware provider must not lean on the software one");

    @ArchTest
    static final ArchRule providersKnowOnlyTheVerbs = noClasses().that().resideInAnyPackage(SOFT, DISNI)
            .should().dependOnClassesThat().resideInAnyPackage(API, MEMORY, ENGINE, FLOW)
            .because("a provider implements the verbs and knows nothing above them");

    @ArchTest
    static final ArchRule softSharedMemoryAndFaultsKnowNoQueuePair = noClasses()
            .that().resideInAnyPackage("io.reactorrdma.verbs.soft.shared..", "io.reactorrdma.verbs.soft.fault..")
            .should().dependOnClassesThat().resideInAPackage("io.reactorrdma.verbs.soft")
            .because("the soft provider's shared-memory structures and fault switches sit below its verbs logic "
                    + "(contexts, queue pairs, fabrics), which uses them");

    @ArchTest
    static final ArchRule disniCallsWorkAndCmKnowNoQueuePair = noClasses()
            .that().resideInAnyPackage("io.reactorrdma.verbs.disni.calls..", "io.reactorrdma.verbs.disni.work..",
                    "io.reactorrdma.verbs.disni.cm..")
            .should().dependOnClassesThat().resideInAPackage("io.reactorrdma.verbs.disni")
            .because("the DiSNI provider's cached calls, work bookkeeping and rdma_cm plumbing sit below its native seam "
                    + "(context, queue pairs, listener, connector), which uses them");

    @ArchTest
    static final ArchRule workTrackingNamesNoProvider = noClasses().that().resideInAPackage("io.reactorrdma.verbs.work.tracking..")
            .should().dependOnClassesThat().resideInAnyPackage(SOFT, DISNI, "com.ibm.disni..")
            .because("the bookkeeping of posted work is shared by the hardware providers: it reads completions field by field "
                    + "and knows no provider's or native library's types");

    @ArchTest
    static final ArchRule theAllocatorKnowsNoEngine = noClasses().that().resideInAPackage(MEMORY)
            .should().dependOnClassesThat().resideInAnyPackage(API, ENGINE, SOFT, DISNI)
            .because("the allocator serves any user of registered memory: it knows nothing of engines, "
                    + "the public API or a particular provider");

    @ArchTest
    static final ArchRule theEngineSpeaksVerbsNeverAProvider = noClasses().that().resideInAPackage(ENGINE)
            .should().dependOnClassesThat().resideInAnyPackage(SOFT, DISNI, API)
            .because("the engine speaks the verbs SPI, never a provider, so it runs unchanged on shm and on "
                    + "hardware; and it is below the public API, which wraps it");

    @ArchTest
    static final ArchRule backpressureHasNoRdmaTypes = noClasses().that().resideInAPackage(FLOW)
            .should().dependOnClassesThat().resideInAnyPackage(API, CONFIG, "io.reactorrdma.verbs..", MEMORY, ENGINE)
            .because("backpressure (credits, windows) has no RDMA types: the simulator and other transports use it as it is");

    @ArchTest
    static final ArchRule reactorRdmaDoesNotKnowRSocket = noClasses().that()
            .resideInAnyPackage(API, CONFIG, "io.reactorrdma.verbs..", MEMORY, ENGINE)
            .should().dependOnClassesThat().resideInAnyPackage("io.rsocket..", "io.reactorrdma.rsocket..")
            .because("reactor-rdma does not know RSocket: the transport builds on it, never the other way round");
}
