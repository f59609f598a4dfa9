package io.reactorrdma.verbs.soft.shared;

/**
 * The byte layout of a shm context's region table, the file {@code <context>.regions}: what a peer
 * reads to decide whether an rkey names a live region with the needed access. The owner writes it;
 * peers only read it, and check everything they read (the region's memory itself is the file
 * {@code <context>.r<key>}, whose real size bounds every access).
 *
 * <pre>
 * Entry i (of capacity), 32 bytes:
 *   0  long keyAndState   (key &lt;&lt; 32) | state, written last on registration (release) and first
 *                         on deregistration; state 1 = VALID, 0 = free
 *   8  int  access        AccessFlags
 *  12  int  pdId          protection domain
 *  16  int  length        bytes
 *  24  long address       the region's base address (RegionKeys: per-context salt, slot)
 * </pre>
 */
public final class RegionTableLayout {

    static final int ENTRY_SIZE = 32;
    public static final int E_KEY_AND_STATE = 0;
    public static final int E_ACCESS = 8;
    public static final int E_PD = 12;
    public static final int E_LENGTH = 16;
    public static final int E_ADDRESS = 24;
    static final long STATE_VALID = 1;

    private RegionTableLayout() {
    }

    public static int size(int capacity) {
        return capacity * ENTRY_SIZE;
    }

    public static int entryOffset(int index) {
        return index * ENTRY_SIZE;
    }

    public static long validWord(int key) {
        return ((long) key << 32) | STATE_VALID;
    }
}
