/**
 * incast-sim's fabric shape and parameters: the {@link io.reactorrdma.incast.topology.Topology} interface (hosts,
 * switches, ports, routes, each port's {@link io.reactorrdma.incast.topology.Tier}), its two topologies
 * ({@link io.reactorrdma.incast.topology.OneBigSwitch} for validation and
 * {@link io.reactorrdma.incast.topology.LeafSpine} with {@link io.reactorrdma.incast.topology.LeafSpineConfig}, hosts
 * laid out by {@link io.reactorrdma.incast.topology.Placement} into a
 * {@link io.reactorrdma.incast.topology.HostPlan}), and the fabric's link, packet and buffer parameters
 * ({@link io.reactorrdma.incast.topology.IncastConfig}). It depends on no other incast package.
 */
package io.reactorrdma.incast.topology;
