/**
 * The {@code ucx} transport: UCX's own benchmark, Debian's {@code ucx_perftest} (package ucx-utils), run as a server and
 * a client process on this host with {@code UCX_TLS=sm,self} ({@link io.reactorrdma.perf.ucx.UcxPerftest}), for echo
 * (tag_lat) and rsocket-stream (tag_bw); its {@code Final:} line ({@link io.reactorrdma.perf.ucx.UcxFinal}) becomes the
 * row the other transports fill, as far as it goes ({@link io.reactorrdma.perf.ucx.UcxRunner}).
 */
package io.reactorrdma.perf.ucx;
