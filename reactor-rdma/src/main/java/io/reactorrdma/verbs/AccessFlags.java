package io.reactorrdma.verbs;

/**
 * Memory-region access flags; the bit values are those of {@code enum ibv_access_flags}, so a
 * hardware provider passes them through unchanged.
 */
public final class AccessFlags {

    /** {@code IBV_ACCESS_LOCAL_WRITE}: the local NIC may write (receive buffers, READ destinations). */
    public static final int LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}: peers may RDMA-WRITE into the region (needs LOCAL_WRITE). */
    public static final int REMOTE_WRITE = 1 << 1;
    /** {@code IBV_ACCESS_REMOTE_READ}: peers may RDMA-READ from the region. */
    public static final int REMOTE_READ = 1 << 2;

    /** Every flag this SPI knows. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ;

    private AccessFlags() {
    }

    /**
     * Checks a flag set as {@code ibv_reg_mr} does.
     *
     * @throws IllegalArgumentException for unknown bits, or REMOTE_WRITE without LOCAL_WRITE
     */
    public static int validate(int access) {
        if ((access & ~ALL) != 0) {
            throw new IllegalArgumentException("unknown access flag bits 0x" + Integer.toHexString(access & ~ALL)
                    + "; use AccessFlags.LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ");
        }
        if ((access & REMOTE_WRITE) != 0 && (access & LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException("REMOTE_WRITE requires LOCAL_WRITE (as ibv_reg_mr does); add AccessFlags.LOCAL_WRITE");
        }
        return access;
    }

    /** A readable form such as {@code LOCAL_WRITE|REMOTE_WRITE}, for error messages. */
    public static String toString(int access) {
        if (access == 0) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        if ((access & LOCAL_WRITE) != 0) {
            sb.append("LOCAL_WRITE|");
        }
        if ((access & REMOTE_WRITE) != 0) {
            sb.append("REMOTE_WRITE|");
        }
        if ((access & REMOTE_READ) != 0) {
            sb.append("REMOTE_READ|");
        }
        if ((access & ~ALL) != 0) {
            sb.append("0x").append(Integer.toHexString(access & ~ALL)).append('|');
        }
        return sb.substring(0, sb.length() - 1);
    }
}
