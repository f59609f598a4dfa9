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
 * the failure analyzers' explanation. Every Spring dependency is optional: the library works without Spring.
 */
package io.reactorrdma.rsocket.boot;
