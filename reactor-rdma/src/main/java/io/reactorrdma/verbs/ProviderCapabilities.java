package io.reactorrdma.verbs;

/**
 * What a provider's device can do ({@code ibv_query_device}, trimmed to what this SPI uses).
 *
 * @param maxQpWr                 deepest send or receive queue
 * @param maxSge                  most scatter/gather entries per request
 * @param maxCqe                  largest completion queue
 * @param maxRegionSize           largest single region {@link ProtectionDomain#allocate} gives
 * @param maxMessageSize          largest message one request may carry
 * @param maxPrivateData          bytes of private data a connect/accept/reject carries
 * @param canRegisterCallerMemory whether {@link ProtectionDomain#register} works
 */
public record ProviderCapabilities(int maxQpWr, int maxSge, int maxCqe, int maxRegionSize, int maxMessageSize,
                                   int maxPrivateData, boolean canRegisterCallerMemory) {
}
