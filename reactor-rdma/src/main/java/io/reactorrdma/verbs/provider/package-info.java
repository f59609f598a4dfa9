/**
 * Provider selection: {@link io.reactorrdma.verbs.provider.Providers} opens a
 * {@link io.reactorrdma.verbs.VerbsContext} by name ({@code auto}, {@code shm}, {@code loopback},
 * {@code disni}) from the {@link io.reactorrdma.verbs.provider.VerbsProviderFactory}s registered in
 * {@code META-INF/services}, each of which says through a
 * {@link io.reactorrdma.verbs.provider.ProviderProbe} whether it can run on this host.
 *
 * <p>Nothing here names a provider: choosing the soft provider never loads a DiSNI class.
 */
package io.reactorrdma.verbs.provider;
