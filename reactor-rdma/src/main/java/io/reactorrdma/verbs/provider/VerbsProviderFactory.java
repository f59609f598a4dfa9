package io.reactorrdma.verbs.provider;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.VerbsContext;

import java.util.List;

/**
 * A verbs provider as {@link Providers} finds it: each provider registers one implementation in
 * {@code META-INF/services/io.reactorrdma.verbs.provider.VerbsProviderFactory}, so this package names none.
 * Creating the factory and calling {@link #names()}, {@link #autoPriority()} and
 * {@link #probe(ProviderConfig)} must load nothing that only opening needs (a native library's
 * classes): choosing one provider never loads another's.
 */
public interface VerbsProviderFactory {

    /** The lower-case names this provider opens under; {@code auto} opens the first. */
    List<String> names();

    /** Where {@code auto} tries this provider: the highest first, the lowest as the fallback. */
    int autoPriority();

    /** Whether {@code auto} should open this provider on this host, and why (or why not). */
    ProviderProbe probe(ProviderConfig config);

    /**
     * Opens the provider under {@code name} (one of {@link #names()}); a provider that cannot be
     * used here is a {@link io.reactorrdma.verbs.ProviderUnavailableException} saying why and what to do.
     */
    VerbsContext open(String name, ProviderConfig config);
}
