package io.reactorrdma.verbs.ffm.rdmacore;

/** The errno values rdma-core reports that this provider explains (Linux numbering). */
public final class Errno {

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;

    private Errno() {
    }

    /** {@code "EACCES (13)"}, or {@code "errno 71"} for one not named here. */
    public static String name(int errno) {
        String name = switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENOSYS -> "ENOSYS";
            default -> null;
        };
        return name == null ? "errno " + errno : name + " (" + errno + ")";
    }
}
