package io.reactorrdma.verbs.provider;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.VerbsContext;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.ServiceConfigurationError;

import static org.assertj.core.api.Assertions.assertThat;

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
