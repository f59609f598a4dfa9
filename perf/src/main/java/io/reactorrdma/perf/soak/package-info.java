/**
 * The fault soak ({@code soak}): {@link io.reactorrdma.perf.soak.SoakRun} drives connections to a forked
 * {@link io.reactorrdma.perf.soak.SoakServer} with faults injected, and {@link io.reactorrdma.perf.soak.SoakLedger}
 * holds every request to account.
 */
package io.reactorrdma.perf.soak;
