/**
 * incast-sim's DCQCN congestion control: its parameters ({@link io.reactorrdma.incast.dcqcn.DcqcnConfig}), the
 * congestion point that marks CE at a switch egress ({@link io.reactorrdma.incast.dcqcn.EcnMarker}), the notification
 * point that sends CNPs ({@link io.reactorrdma.incast.dcqcn.NotificationPoints}) and each QP's reaction point, the rate
 * limiter the NIC consults ({@link io.reactorrdma.incast.dcqcn.ReactionPoints}). The engine
 * ({@link io.reactorrdma.incast.Simulation#congestionControl}) installs it; it depends only on the {@code topology}
 * package.
 */
package io.reactorrdma.incast.dcqcn;
