/**
 * bemalloc, the registered-memory allocator (paper §5.2): every buffer it hands out
 * is already registered, so zero-copy RDMA needs no per-message registration.
 *
 * <p>{@link io.reactorrdma.memory.RegisteredAllocator} holds two
 * {@link io.reactorrdma.memory.RegisteredPool}s (local-only and remote-writable memory) over one
 * protection domain, a remote-writable destination pool per engine (blocks of its own, no thread
 * caches), a Netty view ({@link io.reactorrdma.memory.RegisteredByteBufAllocator}) and
 * Micrometer meters ({@link io.reactorrdma.memory.AllocatorMetrics}). Inside a pool: blocks
 * (default 4 MiB) registered once, divided into 8 KiB pages; size classes up to 64 KiB served from
 * runs (slabs) through per-thread caches; larger sizes up to the block size as page runs, best fit
 * over all blocks' free pages, through a bounded per-thread cache of freed runs; dedicated regions
 * beyond the block size; empty blocks retained with hysteresis. A thread's caches go back to the
 * pools when the thread dies (a {@link java.lang.ref.Cleaner} on the cache). A Netty buffer is one
 * small object over its chunk, new per allocation so that a stale reference to a released buffer
 * fails rather than reaching the memory's next owner.
 */
package io.reactorrdma.memory;
