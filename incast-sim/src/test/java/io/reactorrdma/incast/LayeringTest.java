package io.reactorrdma.incast;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering of incast-sim's packages (package-info of {@code io.reactorrdma.incast}): {@code topology} at the
 * bottom, then {@code dcqcn}, then the engine (this package), then {@code workload}, then the command
 * ({@code sweep}, {@code report}, {@code cli}).
 */
@AnalyzeClasses(packages = "io.reactorrdma.incast", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    static final String ENGINE = "io.reactorrdma.incast";
    static final String TOPOLOGY = "io.reactorrdma.incast.topology..";
    static final String DCQCN = "io.reactorrdma.incast.dcqcn..";
    static final String WORKLOAD = "io.reactorrdma.incast.workload..";
    static final String[] COMMAND = {"io.reactorrdma.incast.cli..", "io.reactorrdma.incast.sweep..",
            "io.reactorrdma.incast.report.."};

    @ArchTest
    static final ArchRule topologyIsTheBottom = noClasses().that().resideInAPackage(TOPOLOGY)
            .should().dependOnClassesThat().resideInAnyPackage(ENGINE, DCQCN, WORKLOAD, COMMAND[0], COMMAND[1], COMMAND[2])
            .because("the fabric's shape and parameters know neither the engine, congestion control, the workload "
                    + "nor the report");

    @ArchTest
    static final ArchRule dcqcnKnowsOnlyTheTopology = noClasses().that().resideInAPackage(DCQCN)
            .should().dependOnClassesThat().resideInAnyPackage(ENGINE, WORKLOAD, COMMAND[0], COMMAND[1], COMMAND[2])
            .because("congestion control is installed by the engine and reads only the fabric's parameters");

    @ArchTest
    static final ArchRule engineKnowsNoWorkloadNorCommand = noClasses().that().resideInAPackage(ENGINE)
            .should().dependOnClassesThat().resideInAnyPackage(WORKLOAD, COMMAND[0], COMMAND[1], COMMAND[2])
            .because("the engine (links, switch, PFC, NICs, senders) runs any Workload and reports to no one");

    @ArchTest
    static final ArchRule workloadKnowsNoCommand = noClasses().that().resideInAPackage(WORKLOAD)
            .should().dependOnClassesThat().resideInAnyPackage(COMMAND)
            .because("the trainers' workload runs in any simulation, not only the command's arms");

    @ArchTest
    static final ArchRule subpackagesAreFreeOfCycles = slices().matching("io.reactorrdma.incast.(*)..")
            .should().beFreeOfCycles();
}
