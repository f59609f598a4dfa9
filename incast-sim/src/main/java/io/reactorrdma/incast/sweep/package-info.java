/**
 * incast-sim's sweep: the {@link io.reactorrdma.incast.sweep.Arm arms} (PFC only; DCQCN + PFC; DCQCN + PFC + the
 * send window W), running each as an independent simulation ({@link io.reactorrdma.incast.sweep.Sweep}),
 * measuring it ({@link io.reactorrdma.incast.sweep.ArmMeasurement} into an
 * {@link io.reactorrdma.incast.sweep.ArmResult}) and choosing the window to recommend
 * ({@link io.reactorrdma.incast.sweep.Recommendation}).
 */
package io.reactorrdma.incast.sweep;
