/**
 * incast-sim's packet-level discrete-event model of a RoCE fabric (docs/INCAST.md).
 *
 * <p>Units: simulated time is a {@code long} of picoseconds; sizes are bytes; rates bits per second. A byte takes
 * 8e12 / rate picoseconds on a link (320 ps at 25 Gb/s), so serialization, propagation and therefore every result of
 * the model are exact integers: one seed gives one output.
 *
 * <p>The model as built: hosts with one NIC port each ({@link io.reactorrdma.incast.topology.Topology}; one big switch,
 * {@link io.reactorrdma.incast.topology.OneBigSwitch}, for validation); a NIC serves its flows (QPs) round-robin, one
 * packet of at most one MTU plus headers per turn; every port serializes one packet at a time, ACKs before data,
 * and a link adds its propagation delay; a switch charges each data packet to its ingress port in a shared buffer
 * (reserve, then shared under a dynamic threshold, then PFC headroom) and queues it on the egress port; PFC XOFF/XON
 * frames take a frame's serialization and a link delay and stop the upstream port's data priority, NICs included;
 * receivers ACK every few packets and a message's last packet, and a message completes at the ACK of its last
 * packet. No drop is modelled: an overflow is a model error, thrown with the port and its occupancy.
 *
 * <p>Events ({@link io.reactorrdma.incast.EventQueue}, a binary heap on primitive arrays, ties by insertion
 * order): a message post, a port's transmission done, a packet's arrival at the far end of a link, a PFC frame's
 * arrival, and a workload's own event. Packets live in a pool of primitive arrays; the steady state allocates nothing.
 *
 * <p>Senders and workload: every flow has a sender engine ({@code SenderEngines},
 * parameters in {@link io.reactorrdma.incast.SenderConfig}) that cuts the application's messages into fragments
 * of the engine's size and posts them within the engine's work-request chain depth and the project's own
 * {@code ByteWindow}; the NIC packetizes only posted fragments. {@link io.reactorrdma.incast.workload.TrainerWorkload}
 * (parameters in {@link io.reactorrdma.incast.workload.TrainerConfig}) runs synchronous or asynchronous trainers that
 * compute, then push one log-normal message to every parameter server.
 *
 * <p>DCQCN ({@link io.reactorrdma.incast.Simulation#congestionControl}, parameters in
 * {@link io.reactorrdma.incast.dcqcn.DcqcnConfig}): switch egresses mark CE at dequeue between Kmin and Kmax
 * ({@code EcnMarker}), receivers send at most one CNP per QP per interval ({@code NotificationPoints}), and each QP's
 * rate limiter ({@code ReactionPoints}) cuts on a CNP and recovers on lazy timers computed in closed form when the QP
 * sends or gets a CNP; a NIC keeps QPs paced below line rate out of its round-robin until they are eligible
 * ({@code PacedFlows}) and wakes once, at the earliest eligible time, when none may send.
 *
 * <p>Topologies: {@link io.reactorrdma.incast.topology.OneBigSwitch} and
 * {@link io.reactorrdma.incast.topology.LeafSpine} (ToRs and spines with 100 Gb/s uplinks, ECMP by flow, PFC counted
 * per tier).
 *
 * <p>Entry point: {@link io.reactorrdma.incast.Simulation} with an {@link io.reactorrdma.incast.topology.IncastConfig}
 * and a {@link io.reactorrdma.incast.Workload}; the {@code incast-sim} command (subpackages {@code cli},
 * {@code sweep}, {@code report}) runs the arms and recommends a send window.
 *
 * <p>Packages: this one is the engine (the simulation, its event queue, NICs, links, the switches' shared buffer and
 * PFC, packets, flows and the sender engines with their send window); {@code topology} holds the fabric's shape and
 * parameters and depends on no other incast package; {@code dcqcn} holds congestion control and depends only on
 * {@code topology}; {@code workload} holds the trainers' workload on top of the engine; {@code cli}, {@code sweep}
 * and {@code report} are the command (LayeringTest).
 */
package io.reactorrdma.incast;
