package io.reactorrdma.memory;

/**
 * A snapshot of a registered pool's figures.
 *
 * @param registeredBytes     bytes registered with the provider now (blocks and dedicated regions)
 * @param peakRegisteredBytes most bytes registered at once
 * @param blocks              pooled blocks held now
 * @param registrations       regions registered since creation
 * @param deregistrations     regions deregistered since creation
 * @param liveBuffers         allocations not yet released
 * @param liveBytes           bytes requested by those allocations
 */
public record AllocatorStatistics(long registeredBytes, long peakRegisteredBytes, int blocks, long registrations,
                                  long deregistrations, long liveBuffers, long liveBytes) {

    /** Two pools' figures added up, field by field. */
    AllocatorStatistics plus(AllocatorStatistics o) {
        return new AllocatorStatistics(registeredBytes + o.registeredBytes, peakRegisteredBytes + o.peakRegisteredBytes,
                blocks + o.blocks, registrations + o.registrations, deregistrations + o.deregistrations,
                liveBuffers + o.liveBuffers, liveBytes + o.liveBytes);
    }
}
