/**
 * Spring Boot auto-configuration: a Spring Boot RSocket application serves its
 * {@code @MessageMapping} handlers over RDMA with one dependency and one property
 * ({@code reactor.rdma.rsocket.server.port}), and builds requesters over RDMA.
 *
 * <p>{@link io.reactorrdma.rsocket.boot.RdmaAutoConfiguration} creates, from
 * {@link io.reactorrdma.rsocket.boot.RdmaProperties} ({@code reactor.rdma.*}), one shared
 * {@link io.reactorrdma.RdmaResources} (through {@link io.reactorrdma.rsocket.boot.RdmaResourcesFactory},
 * which checks the settings at startup), an {@link io.reactorrdma.rsocket.boot.RdmaRSocketServerFactory}
 * with Boot's {@code RSocketServerBootstrap} (RDMA, and TCP on {@code tcp-port}),
 * {@link io.reactorrdma.rsocket.boot.RdmaRSocketRequesters}, and the Actuator health indicator
 * {@code rdma} ({@link io.reactorrdma.rsocket.boot.RdmaHealthIndicator}). Bad settings fail startup with
 * the failure analyzers' explanation. It ships in {@code reactor-rdma-spring-boot-autoconfigure}, whose Spring
 * dependencies are optional; applications add {@code reactor-rdma-spring-boot-starter}.
 *
 * <p>Recovery (packages {@code io.reactorrdma.rsocket.fallback}, {@code .shard} and {@code .lease}): the server binds RDMA and TCP
 * through {@code RdmaServers.dual}, and serves TCP only when its RDMA provider cannot open but a TCP port
 * is set ({@link io.reactorrdma.rsocket.boot.RdmaRSocketServer}); requesters fall back to TCP with
 * {@code reactor.rdma.rsocket.client.tcp-fallback=true} or {@code requesters.tcpFallback(true)}, over
 * {@code FallbackClientTransport} on a transport that looks the shared resources up per connect
 * ({@code SharedRdmaClientTransport}); {@code FallbackConnections} counts their TCP connections for health.
 * {@link io.reactorrdma.rsocket.boot.RdmaShardClients} hands out the replicated {@code ShardClient}s of
 * {@code reactor.rdma.rsocket.client.shards.<name>.replicas} with the policies of
 * {@code reactor.rdma.rsocket.client.shard.*}, and Spring requesters over them ({@code ShardClientRSocket}).
 */
package io.reactorrdma.rsocket.boot;
