package io.reactorrdma.perf.doctor.checks;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One line of the report: how a check came out, what it is about ({@code memlock}, {@code port mlx5_0/1}), what was
 * found, what to do (null when nothing is to be done) and the providers that cannot run while it stays so.
 *
 * @param status what it means
 * @param topic  what was checked, short
 * @param found  what was found, in the host's terms (paths as the host has them, values as read)
 * @param fix    what to do, in the user's terms (a package to install, a property to set); null for OK
 * @param blocks the providers this line keeps from running; empty for {@link Status#OK}. A {@link Status#FAIL} blocks
 *               what needs the thing found; a {@link Status#WARN} may block a provider where the host is set up for
 *               another on purpose (a JDK 17 to 21 runs disni, the JDK 17 path, but not ffm)
 */
public record Finding(Status status, String topic, String found, String fix, Set<Provider> blocks) {

    public Finding {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(found, "found");
        blocks = blocks.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(blocks));
        if (status == Status.OK && !blocks.isEmpty()) {
            throw new IllegalArgumentException("an OK line blocks no provider: " + topic);
        }
    }

    public static Finding ok(String topic, String found) {
        return new Finding(Status.OK, topic, found, null, Set.of());
    }

    public static Finding warn(String topic, String found, String fix) {
        return new Finding(Status.WARN, topic, found, fix, Set.of());
    }

    /** A warning that keeps {@code blocks} from running, while the host is fine for the other providers. */
    public static Finding warn(String topic, String found, String fix, Set<Provider> blocks) {
        return new Finding(Status.WARN, topic, found, fix, blocks);
    }

    public static Finding fail(String topic, String found, String fix, Set<Provider> blocks) {
        return new Finding(Status.FAIL, topic, found, fix, blocks);
    }

    /** A FAIL as a WARN (same text, blocking nothing): a port's problem while another port works; other lines as they are. */
    public Finding asWarning() {
        return status == Status.FAIL ? warn(topic, found, fix) : this;
    }
}
