package io.reactorrdma.verbs.provider;

import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.disni.DisniEnvironment;
import io.reactorrdma.verbs.disni.DisniProviderFactory;
import io.reactorrdma.verbs.soft.SoftProviderFactory;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How {@code auto} and {@code disni} decide, with the hardware environment pointed at temporary files. */
class ProvidersDisniTest {

    static final Path DIR = Paths.get("/dev/shm", "reactor-rdma-providers-disni-" + ProcessHandle.current().pid());
    static final SoftConfig SOFT = SoftConfig.defaults().withShmDirectory(DIR);

    @TempDir
    Path tmp;

    @AfterAll
    static void cleanup() throws IOException {
        ProvidersTest.deleteTree(DIR);
    }

    private int envs;

    private DisniEnvironment env(boolean device, boolean library, boolean exported) throws IOException {
        Path ib = tmp.resolve("infiniband" + envs++);
        Files.createDirectories(ib);
        if (device) {
            Files.createDirectories(ib.resolve("mlx5_0"));
        }
        return DisniEnvironment.system().withDevicesDir(ib).withLimitsFile(tmp.resolve("no-limits"))
                .withLibraryLoader(n -> {
                    if (!library) {
                        throw new UnsatisfiedLinkError("no disni in java.library.path");
                    }
                })
                .withExportCheck(() -> exported)
                .withSlf4jCheck(() -> true);
    }

    /** Opens {@code name} with the registered providers, the DiSNI one seeing {@code environment}. */
    private static VerbsContext open(String name, DisniEnvironment environment) {
        return Providers.open(new ProviderConfig(name, SOFT, DisniConfig.defaults()),
                List.of(new SoftProviderFactory(), new DisniProviderFactory(environment)));
    }

    @Test
    void autoFallsBackToShmWithoutADeviceOrWithoutTheLibrary() throws IOException {
        for (DisniEnvironment e : List.of(env(false, true, true), env(true, false, true), env(false, false, false))) {
            try (VerbsContext c = open("auto", e)) {
                assertThat(c.providerName()).isEqualTo("shm");
            }
        }
    }

    @Test
    void autoChoosesDisniWhenTheLibraryLoadsAndADeviceExistsAndThenReportsWhatElseIsMissing() throws IOException {
        assertThatThrownBy(() -> open("auto", env(true, true, false)))
                .isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining("--add-exports java.base/sun.nio.ch=ALL-UNNAMED");
        // everything in order, but the fake device has no interface with an address
        assertThatThrownBy(() -> open(null, env(true, true, true)))
                .isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining("reactor.rdma.disni.address");
    }

    @Test
    void disniSaysWhatIsMissingAndHowToFixIt() throws IOException {
        assertThatThrownBy(() -> open("disni", env(false, false, true)))
                .isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining("libdisni did not load").hasMessageContaining("make install")
                .hasMessageContaining("no RDMA device").hasMessageContaining("'shm'");
    }

    /** The test class path; Surefire may hand it over in a manifest-only jar's Class-Path. */
    private static List<URL> testClassPath() throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Paths.get(entry);
            urls.add(p.toUri().toURL());
            if (entry.endsWith(".jar") && p.getFileName().toString().startsWith("surefire")) {
                try (java.util.jar.JarFile jar = new java.util.jar.JarFile(p.toFile())) {
                    String cp = jar.getManifest() == null ? null : jar.getManifest().getMainAttributes().getValue("Class-Path");
                    if (cp != null) {
                        for (String u : cp.trim().split("\\s+")) {
                            urls.add(p.toUri().resolve(u).toURL());
                        }
                    }
                }
            }
        }
        return urls;
    }

    /**
     * The soft providers, and auto and disni on a host without RDMA, must work with DiSNI absent
     * from the class path: proof that they never load a DiSNI class (which would need JVM flags).
     */
    @Test
    void theSoftPathNeverLoadsDisniClasses() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (URL u : testClassPath()) {
            if (!u.toString().contains("/com/ibm/disni/")) {
                urls.add(u); // the DiSNI jar in the Maven repository
            }
        }
        try (URLClassLoader noDisni = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> noDisni.loadClass("com.ibm.disni.verbs.IbvWC")).isInstanceOf(ClassNotFoundException.class);
            // the DiSNI provider is registered beside the soft one, and Providers creates and probes both
            assertThat(noDisni.getResources("META-INF/services/" + VerbsProviderFactory.class.getName()).hasMoreElements()).isTrue();
            Class<?> providers = noDisni.loadClass(Providers.class.getName());
            Class<?> softConfig = noDisni.loadClass(SoftConfig.class.getName());
            Object config = softConfig.getMethod("withShmDirectory", Path.class).invoke(softConfig.getMethod("defaults").invoke(null), DIR);
            Method open = providers.getMethod("open", String.class, softConfig);
            for (String name : List.of("shm", "loopback", "auto")) {
                try (AutoCloseable c = (AutoCloseable) open.invoke(null, name, config)) {
                    assertThat(c.getClass().getName()).contains(".soft.");
                }
            }
            if (!DisniEnvironment.system().probe().hardwarePresent()) {
                assertThatThrownBy(() -> open.invoke(null, "disni", config))
                        .satisfies(e -> assertThat(e.getCause().getClass().getName())
                                .isEqualTo(ProviderUnavailableException.class.getName()));
            }
        }
    }
}
