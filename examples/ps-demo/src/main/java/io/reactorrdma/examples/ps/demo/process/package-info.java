/**
 * The demo's child processes: shard replicas started with this JVM's java binary and class path,
 * their standard input held open so that they exit with the demo, killed and restarted on the same
 * ports for the recovery phase, and their CPU time read from the operating system.
 */
package io.reactorrdma.examples.ps.demo.process;
