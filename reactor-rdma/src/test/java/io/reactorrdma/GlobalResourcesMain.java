package io.reactorrdma;

/**
 * A process that uses {@link RdmaResources#global()} and exits without disposing it: its shm
 * files must be gone when it has exited (the shutdown hook). Prints the shm directory used.
 */
public final class GlobalResourcesMain {

    private GlobalResourcesMain() {
    }

    public static void main(String[] args) {
        RdmaResources resources = RdmaResources.global();
        resources.allocator().byteBufAllocator().directBuffer(64).release(); // some registered memory
        System.out.println("ready " + resources.context());
        System.out.flush();
        System.exit(0);
    }
}
