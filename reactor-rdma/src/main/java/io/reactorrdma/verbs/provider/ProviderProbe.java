package io.reactorrdma.verbs.provider;

import java.util.Objects;

/**
 * What a provider found on this host, for {@code auto}: whether to open it, and one line saying
 * why or why not (for logs and startup advice).
 *
 * @param usable  whether {@code auto} should open this provider here
 * @param summary one line: what was found, or the first thing missing
 */
public record ProviderProbe(boolean usable, String summary) {

    public ProviderProbe {
        Objects.requireNonNull(summary, "summary");
    }
}
