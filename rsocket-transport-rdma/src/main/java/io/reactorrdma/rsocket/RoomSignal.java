package io.reactorrdma.rsocket;

import io.rsocket.DuplexConnection;
import io.rsocket.RSocket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * Tells a requester that waits for its connection's {@code availability()} to rise when it may have
 * risen, so it waits without a timer. A connection of this project has one and says so when its
 * {@code availability()} is asked through {@link #availability(RSocket, Consumer)}; it signals when
 * its queue drains below its pressure limit, when a LEASE frame has been handled, and when it
 * switches transports. A waiter arms it with {@link #whenRoom}, then looks at the availability
 * again (a change after that look signals).
 */
public final class RoomSignal {

    private static final ThreadLocal<Consumer<RoomSignal>> ASKING = new ThreadLocal<>();
    private static final VarHandle LISTENER;

    static {
        try {
            LISTENER = MethodHandles.lookup().findVarHandle(RoomSignal.class, "listener", Runnable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Runnable onArm;
    @SuppressWarnings("unused") // through LISTENER
    private volatile Runnable listener;

    /** @param onArm runs each time a waiter arms the signal (the connection starts watching what it needs) */
    public RoomSignal(Runnable onArm) {
        this.onArm = onArm;
    }

    /**
     * {@code rsocket.availability()}; the outermost connection of this project that it reaches hands
     * its signal to {@code found} (on this thread, before this returns). RSocket's requester asks
     * its connection synchronously, so the requester's connection is found this way.
     */
    public static double availability(RSocket rsocket, Consumer<RoomSignal> found) {
        ASKING.set(found);
        try {
            return rsocket.availability();
        } finally {
            ASKING.remove();
        }
    }

    /** The signal of {@code connection}, or null when it is not one of this project's (found as above). */
    public static RoomSignal of(DuplexConnection connection) {
        RoomSignal[] found = new RoomSignal[1];
        ASKING.set(s -> found[0] = s);
        try {
            connection.availability();
        } finally {
            ASKING.remove();
        }
        return found[0];
    }

    /** A connection's {@code availability()} calls this first: the first (outermost) one asked is the one found. */
    public void introduce() {
        Consumer<RoomSignal> found = ASKING.get();
        if (found != null) {
            ASKING.remove();
            found.accept(this);
        }
    }

    /** Runs {@code listener} once, at the next signal (any thread, possibly an I/O thread: keep it short). */
    public void whenRoom(Runnable listener) {
        this.listener = listener;
        onArm.run();
    }

    /** Whether a waiter armed the signal and was not told yet. */
    public boolean armed() {
        return listener != null;
    }

    /** Availability may have risen: the armed listener, if any, runs (once). */
    public void signal() {
        Runnable l = listener;
        if (l != null && LISTENER.compareAndSet(this, l, null)) {
            l.run();
        }
    }
}
