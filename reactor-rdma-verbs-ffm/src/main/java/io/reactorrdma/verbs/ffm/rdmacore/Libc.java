package io.reactorrdma.verbs.ffm.rdmacore;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The few libc calls an I/O thread needs to block on rdma-core's descriptors and be woken by another thread:
 * {@code poll(2)} over a completion channel and an {@code eventfd(2)}, as Netty's epoll loop waits on its eventfd.
 */
public final class Libc {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final int EFD_CLOEXEC = 0x80000;
    private static final int EFD_NONBLOCK = 0x800;
    private static final short POLLIN = 1;
    /** {@code struct pollfd}: {@code int fd; short events; short revents;}. */
    private static final long POLLFD = 8;
    private static final int EINTR = 4;

    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MethodHandle POLL = call("poll", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle EVENTFD = call("eventfd", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle READ = call("read", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle WRITE = call("write", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = call("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private Libc() {
    }

    /** A waiter over two descriptors: {@code fd} and a fresh eventfd that {@link Waiter#wake()} signals. */
    public static Waiter waiter(int fd) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            int eventFd = (int) EVENTFD.invokeExact(state, 0, EFD_CLOEXEC | EFD_NONBLOCK);
            if (eventFd < 0) {
                throw new IllegalStateException("eventfd failed with " + Errno.name(Libibverbs.errno(state))
                        + ": the process may be out of descriptors (ulimit -n)");
            }
            return new Waiter(fd, eventFd);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling eventfd failed", t);
        }
    }

    /**
     * Waits on a descriptor and an eventfd at once. One thread waits; any thread wakes. Allocation-free after creation.
     */
    public static final class Waiter implements AutoCloseable {

        /** What {@link #await} found. */
        public enum Ready { FD, WAKEUP, TIMEOUT }

        private final Arena arena = Arena.ofShared();
        private final MemorySegment fds = arena.allocate(2 * POLLFD, 4);
        private final MemorySegment counter = arena.allocate(ValueLayout.JAVA_LONG);
        private final MemorySegment one = arena.allocate(ValueLayout.JAVA_LONG);
        private final MemorySegment state = Libibverbs.callState(arena);
        private final int eventFd;
        private boolean closed;

        private Waiter(int fd, int eventFd) {
            this.eventFd = eventFd;
            fds.set(ValueLayout.JAVA_INT, 0, fd);
            fds.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
            fds.set(ValueLayout.JAVA_INT, POLLFD, eventFd);
            fds.set(ValueLayout.JAVA_SHORT, POLLFD + 4, POLLIN);
            one.set(ValueLayout.JAVA_LONG, 0, 1L);
        }

        /**
         * Blocks until the descriptor is readable, a wake-up came (consumed here), or {@code timeoutMillis} passed;
         * the descriptor wins over a wake-up when both are ready.
         */
        public Ready await(int timeoutMillis) {
            fds.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            fds.set(ValueLayout.JAVA_SHORT, POLLFD + 6, (short) 0);
            int n;
            try {
                n = (int) POLL.invokeExact(state, fds, 2L, timeoutMillis);
            } catch (Throwable t) {
                throw new IllegalStateException("calling poll failed", t);
            }
            if (n < 0) {
                int errno = Libibverbs.errno(state);
                if (errno == EINTR) {
                    return Ready.TIMEOUT;
                }
                throw new IllegalStateException("poll failed with " + Errno.name(errno));
            }
            if (n == 0) {
                return Ready.TIMEOUT;
            }
            boolean wakeup = fds.get(ValueLayout.JAVA_SHORT, POLLFD + 6) != 0;
            if (wakeup) {
                try {
                    long read = (long) READ.invokeExact(eventFd, counter, 8L); // resets the eventfd
                    assert read == 8 || read == -1; // -1: another await took the count (EAGAIN: non-blocking)
                } catch (Throwable t) {
                    throw new IllegalStateException("calling read failed", t);
                }
            }
            return fds.get(ValueLayout.JAVA_SHORT, 6) != 0 ? Ready.FD : Ready.WAKEUP;
        }

        /**
         * Makes the current or the next {@link #await} return (any thread). Synchronized with {@link #close()}: a wake
         * must never write into a descriptor closed meanwhile, which the kernel may have given to a file or socket.
         */
        public synchronized void wake() {
            if (closed) {
                return;
            }
            try {
                long written = (long) WRITE.invokeExact(eventFd, one, 8L);
                assert written == 8 : "eventfd write returned " + written;
            } catch (Throwable t) {
                throw new IllegalStateException("calling write failed", t);
            }
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                try {
                    int rc = (int) CLOSE.invokeExact(eventFd);
                    assert rc == 0 : "close(eventfd) returned " + rc;
                } catch (Throwable t) {
                    throw new IllegalStateException("calling close failed", t);
                } finally {
                    arena.close();
                }
            }
        }
    }

    private static MethodHandle call(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("libc has no " + name + ": this provider needs glibc or musl on Linux"));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }
}
