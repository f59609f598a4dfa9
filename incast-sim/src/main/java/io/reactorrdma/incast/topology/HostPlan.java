package io.reactorrdma.incast.topology;

/**
 * Which host each parameter server and each trainer runs on, from {@link LeafSpine#place}: server i is host
 * {@link #server(int) server(i)}, trainer j host {@link #trainer(int) trainer(j)}; no host has two roles.
 */
public final class HostPlan {

    private final int[] order;
    private final int servers;
    private final int trainers;

    HostPlan(int[] order, int servers, int trainers) {
        this.order = order;
        this.servers = servers;
        this.trainers = trainers;
    }

    /** Parameter servers placed. */
    public int servers() {
        return servers;
    }

    /** Trainers placed. */
    public int trainers() {
        return trainers;
    }

    /** The host of parameter server {@code index} (0 .. servers − 1). */
    public int server(int index) {
        if (index < 0 || index >= servers) {
            throw new IllegalArgumentException("server " + index + ": the plan has servers 0.." + (servers - 1));
        }
        return order[index];
    }

    /** The host of trainer {@code index} (0 .. trainers − 1). */
    public int trainer(int index) {
        if (index < 0 || index >= trainers) {
            throw new IllegalArgumentException("trainer " + index + ": the plan has trainers 0.." + (trainers - 1));
        }
        return order[servers + index];
    }
}
