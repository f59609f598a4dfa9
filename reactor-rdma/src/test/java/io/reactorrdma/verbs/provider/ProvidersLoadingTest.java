package io.reactorrdma.verbs.provider;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.VerbsContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A registered provider this JVM cannot load (the ffm provider's classes are compiled for Java 22) is left out, and
 * the others still load: on Java 17 with reactor-rdma-verbs-ffm on the class path, auto still finds shm and disni.
 */
class ProvidersLoadingTest {

    @Test
    void aFactoryThatCannotBeLoadedIsLeftOutAndTheOthersStay() {
        VerbsProviderFactory one = new Named("one");
        VerbsProviderFactory two = new Named("two");
        Iterator<VerbsProviderFactory> registered = new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < 3;
            }

            @Override
            public VerbsProviderFactory next() {
                switch (next++) {
                    case 0:
                        return one;
                    case 1:
                        throw new ServiceConfigurationError("io.reactorrdma.verbs.provider.VerbsProviderFactory: Provider "
                                + "io.reactorrdma.verbs.ffm.provider.FfmProviderFactory could not be instantiated",
                                new UnsupportedClassVersionError("class file version 66.0"));
                    case 2:
                        return two;
                    default:
                        throw new NoSuchElementException();
                }
            }
        };
        assertThat(Providers.loadable(registered)).containsExactly(one, two);
    }

    /**
     * The class-path case for real: a registration naming a class file of a Java release this JVM does not run. The
     * class-path service loader lets the raw {@link UnsupportedClassVersionError} out of {@code hasNext}.
     */
    @Test
    void aRegisteredClassOfANewerJavaOnTheClassPathIsLeftOutAndTheRealProvidersStay(@TempDir Path dir) throws Exception {
        String fake = "io.reactorrdma.fake.TooNewProviderFactory";
        Path services = dir.resolve("META-INF/services/" + VerbsProviderFactory.class.getName());
        Files.createDirectories(services.getParent());
        Files.writeString(services, fake + "\n");
        Path classFile = dir.resolve(fake.replace('.', '/') + ".class");
        Files.createDirectories(classFile.getParent());
        // magic, minor 0, major 99: the JVM refuses the version before it reads anything else
        Files.write(classFile, new byte[] {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE, 0, 0, 0, 99});
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, Providers.class.getClassLoader())) {
            List<VerbsProviderFactory> loaded = Providers.loadable(ServiceLoader.load(VerbsProviderFactory.class, loader).iterator());
            assertThat(loaded.stream().flatMap(f -> f.names().stream()).toList()).contains("shm", "disni");
        }
        assertThatThrownBy(() -> Providers.open(ProviderConfig.defaults().withName("too-new"),
                List.of())).hasMessageContaining("left out because this JVM cannot load them")
                .hasMessageContaining("TooNewProviderFactory");
    }

    private record Named(String name) implements VerbsProviderFactory {

        @Override
        public List<String> names() {
            return List.of(name);
        }

        @Override
        public int autoPriority() {
            return 0;
        }

        @Override
        public ProviderProbe probe(ProviderConfig config) {
            return new ProviderProbe(false, name);
        }

        @Override
        public VerbsContext open(String n, ProviderConfig config) {
            throw new UnsupportedOperationException(n);
        }
    }
}
