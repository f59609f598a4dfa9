package io.reactorrdma.perf;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The layering of the perf tools (README, "Layering"). The incast simulator is a module of its own
 * (incast-sim) whose only project dependencies are backpressure and tools: its build keeps it off the transport.
 */
@AnalyzeClasses(packages = "io.reactorrdma.perf", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    static final String[] SCENARIOS = {"io.reactorrdma.perf.echo..", "io.reactorrdma.perf.verbs..", "io.reactorrdma.perf.rsocket..",
            "io.reactorrdma.perf.fanout..", "io.reactorrdma.perf.soak..", "io.reactorrdma.perf.floor..", "io.reactorrdma.perf.ucx..",
            "io.reactorrdma.perf.doctor.."};
    static final String[] SUPPORT = {"io.reactorrdma.perf.cli..", "io.reactorrdma.perf.measure..", "io.reactorrdma.perf.report..",
            "io.reactorrdma.perf.peer.."};

    @ArchTest
    static final ArchRule perfMeasuresWhatUsersGet = noClasses().that().resideInAPackage("io.reactorrdma.perf..")
            .should().dependOnClassesThat().resideInAnyPackage("io.reactorrdma.engine..", "io.reactorrdma.verbs.disni..")
            .because("the benchmarks measure what an application gets, through the public API and the verbs SPI, "
                    + "never the engine's insides");

    @ArchTest
    static final ArchRule scenariosDoNotKnowTheDispatcher = noClasses().that().resideInAnyPackage(SCENARIOS)
            .should().dependOnClassesThat().resideInAPackage("io.reactorrdma.perf")
            .allowEmptyShould(true)
            .because("a scenario runs from any entry point; only the command line knows all of them");

    @ArchTest
    static final ArchRule supportIsBelowScenarios = noClasses().that().resideInAnyPackage(SUPPORT)
            .should().dependOnClassesThat().resideInAnyPackage(SCENARIOS)
            .allowEmptyShould(true)
            .because("options, meters, reports and peers serve every scenario and know none");

    @ArchTest
    static final ArchRule doctorLayers = classes().that().resideInAPackage("io.reactorrdma.perf.doctor.host..")
            .should().onlyDependOnClassesThat().resideOutsideOfPackages("io.reactorrdma.perf.doctor",
                    "io.reactorrdma.perf.doctor.checks..")
            .because("the doctor's host facts are its bottom layer; the checks read them, the command runs the checks");

    @ArchTest
    static final ArchRule doctorChecksDoNotKnowTheCommand = classes().that().resideInAPackage("io.reactorrdma.perf.doctor.checks..")
            .should().onlyDependOnClassesThat().resideOutsideOfPackage("io.reactorrdma.perf.doctor")
            .because("checks return findings; the command and the report sit above them");

    @ArchTest
    static final ArchRule doctorReadsTheHostNotTheProviders = classes().that().resideInAPackage("io.reactorrdma.perf.doctor..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "picocli..", "io.reactorrdma.config..",
                    "io.reactorrdma.tools.cli..", "io.reactorrdma.perf.doctor..")
            .because("the doctor reads the host's files and the public configuration only: it must run where no provider opens,"
                    + " and judges a provider without loading it");
}
