package io.reactorrdma.tools.launch;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The command line of a child JVM that runs a main class of this program: this JVM's java binary, the JVM options
 * given, the system properties of this JVM that {@code forwarded} accepts (as {@code -Dname=value}, in name order),
 * {@code -cp} the jar {@code anchor} was loaded from (the class path of this JVM when run from class directories:
 * tests, an IDE), the main class and its arguments. Immutable.
 */
public final class ChildJvm {

    private final Class<?> anchor;
    private final String mainClass;
    private final List<String> jvmOptions;
    private final Predicate<String> forwarded;

    private ChildJvm(Class<?> anchor, String mainClass, List<String> jvmOptions, Predicate<String> forwarded) {
        this.anchor = Objects.requireNonNull(anchor, "anchor");
        this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
        this.jvmOptions = List.copyOf(jvmOptions);
        this.forwarded = Objects.requireNonNull(forwarded, "forwarded");
    }

    /** A child running {@code mainClass} from the jar (or class path) {@code anchor} comes from; no options, no properties. */
    public static ChildJvm of(Class<?> anchor, String mainClass) {
        return new ChildJvm(anchor, mainClass, List.of(), name -> false);
    }

    /** This child with JVM options ({@code -Xmx256m}), placed before the properties. */
    public ChildJvm withJvmOptions(List<String> options) {
        return new ChildJvm(anchor, mainClass, options, forwarded);
    }

    /**
     * Whether a system property configures the libraries the child runs on: the toolkit's ({@code reactor.rdma.*}) or
     * Netty's ({@code io.netty.*}, e.g. {@code io.netty.leakDetection.level}, which a leak report tells the user to set:
     * the buffers it is about may live in the child), but not Netty's identity of this process
     * ({@code io.netty.processId}, {@code io.netty.machineId}: a child is another process).
     */
    public static boolean libraryProperty(String name) {
        return name.startsWith("reactor.rdma.")
                || name.startsWith("io.netty.") && !name.equals("io.netty.processId") && !name.equals("io.netty.machineId");
    }

    /** This child with the system properties of this JVM whose names {@code names} accepts passed on. */
    public ChildJvm forwarding(Predicate<String> names) {
        return new ChildJvm(anchor, mainClass, jvmOptions, names);
    }

    /** The command line that starts the child with {@code args}. */
    public List<String> command(List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(jvmOptions);
        System.getProperties().stringPropertyNames().stream().filter(forwarded).sorted()
                .forEach(name -> cmd.add("-D" + name + "=" + System.getProperty(name)));
        cmd.add("-cp");
        cmd.add(classPath(anchor));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /** The java binary of this JVM. */
    public static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** The jar {@code anchor} came from; when it came from a class directory (tests, an IDE), the JVM's class path. */
    public static String classPath(Class<?> anchor) {
        CodeSource source = anchor.getProtectionDomain().getCodeSource();
        if (source != null && source.getLocation() != null) {
            try {
                Path p = Paths.get(source.getLocation().toURI());
                if (Files.isRegularFile(p)) {
                    return p.toString();
                }
            } catch (URISyntaxException | IllegalArgumentException e) {
                // fall through to the class path
            }
        }
        return System.getProperty("java.class.path");
    }
}
