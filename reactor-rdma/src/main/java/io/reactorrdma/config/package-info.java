/**
 * What an application sets: one immutable record per part, each with its defaults, its checks
 * (in the canonical constructor: a bad value fails where it is made, naming the setting) and a
 * {@code with…} per setting that returns a copy. Reactor Netty keeps its {@code TcpClientConfig}
 * apart from the fluent {@code TcpClient} in the same way.
 * <ul>
 *   <li>{@link io.reactorrdma.config.ProviderConfig} — which verbs provider to open, with the
 *       soft provider's {@link io.reactorrdma.config.SoftConfig} and DiSNI's
 *       {@link io.reactorrdma.config.DisniConfig};</li>
 *   <li>{@link io.reactorrdma.config.EngineConfig} — queue depths, eager and fragment sizes,
 *       windows, timeouts of the engine;</li>
 *   <li>{@link io.reactorrdma.config.AllocatorConfig} — the registered allocator's blocks and caches;</li>
 *   <li>{@link io.reactorrdma.config.IdleStrategy} — what an I/O thread does when it finds nothing to do.</li>
 * </ul>
 * Hand them to {@code RdmaResources.builder(name)}. The engine, the allocator and the providers
 * read them; this package depends on none of them.
 */
package io.reactorrdma.config;
