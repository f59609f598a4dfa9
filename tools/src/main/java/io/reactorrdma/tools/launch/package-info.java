/**
 * Child JVMs: {@link io.reactorrdma.tools.launch.ChildJvm} builds the command line that starts a main class of the
 * running program in a new JVM (this JVM's java binary, the jar or class path it runs from, chosen system properties),
 * for perf's forked peers and the demo's shard replicas.
 */
package io.reactorrdma.tools.launch;
