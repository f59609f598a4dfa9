package io.reactorrdma.examples.ps.demo.measure;

import java.util.List;
import java.util.function.Predicate;

/**
 * Picks threads by the name Linux shows for them ({@code /proc/<pid>/task/<tid>/comm}): the
 * thread's name cut to its first {@link #COMM_LENGTH} bytes. A Java thread named
 * {@code reactor-tcp-epoll-12} shows as {@code reactor-tcp-epo}, so a prefix longer than that
 * cannot be compared whole: each prefix is cut the same way before it is compared, and matches
 * every comm that begins with what is left of it. (Names here are ASCII: one byte a character.)
 */
public final class ThreadNames implements Predicate<String> {

    /** The longest comm Linux keeps: 15 bytes (16 with the terminating NUL, {@code TASK_COMM_LEN}). */
    public static final int COMM_LENGTH = 15;

    private final List<String> cut;

    private ThreadNames(List<String> prefixes) {
        if (prefixes.isEmpty() || prefixes.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException("give at least one non-empty prefix, got " + prefixes);
        }
        this.cut = prefixes.stream().map(ThreadNames::comm).toList();
    }

    /** Threads whose name begins with one of {@code prefixes}, as far as the comm shows it. */
    public static ThreadNames startingWith(List<String> prefixes) {
        return new ThreadNames(List.copyOf(prefixes));
    }

    /** Threads whose name begins with {@code prefix}, as far as the comm shows it. */
    public static ThreadNames startingWith(String prefix) {
        return new ThreadNames(List.of(prefix));
    }

    /** What Linux shows as the comm of a thread named {@code name}: its first {@link #COMM_LENGTH} characters. */
    public static String comm(String name) {
        return name.length() <= COMM_LENGTH ? name : name.substring(0, COMM_LENGTH);
    }

    /** Whether the thread whose comm is {@code comm} is one of these. */
    @Override
    public boolean test(String comm) {
        for (String p : cut) {
            if (comm.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "threads whose comm starts with " + cut;
    }
}
