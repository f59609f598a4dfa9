package io.reactorrdma.verbs.ffm.provider;

import java.util.Arrays;

/**
 * The registered regions of a protection domain by lkey, for a lock-free, allocation-free question on the post path:
 * does this scatter/gather entry lie in a region of the domain? An inline send is copied by the CPU at post time and
 * never checked by the device, so only an entry that passes is sent inline; any other goes by DMA, and the device
 * answers a bad one with LOC_PROT_ERR instead of the process reading memory it does not own. Copy-on-write: regions
 * come and go on the setup path.
 */
final class RegionBounds {

    private record Snapshot(int[] lkeys, long[] starts, long[] ends) {
    }

    private volatile Snapshot snapshot = new Snapshot(new int[0], new long[0], new long[0]);

    synchronized void add(int lkey, long address, long length) {
        Snapshot s = snapshot;
        int i = Arrays.binarySearch(s.lkeys, lkey);
        int at = i >= 0 ? i : -i - 1;
        int n = s.lkeys.length + (i >= 0 ? 0 : 1);
        int[] keys = new int[n];
        long[] starts = new long[n];
        long[] ends = new long[n];
        copyAround(s, at, i >= 0 ? 1 : 0, keys, starts, ends);
        keys[at] = lkey;
        starts[at] = address;
        ends[at] = address + length;
        snapshot = new Snapshot(keys, starts, ends);
    }

    synchronized void remove(int lkey) {
        Snapshot s = snapshot;
        int at = Arrays.binarySearch(s.lkeys, lkey);
        if (at < 0) {
            return;
        }
        int n = s.lkeys.length - 1;
        int[] keys = new int[n];
        long[] starts = new long[n];
        long[] ends = new long[n];
        System.arraycopy(s.lkeys, 0, keys, 0, at);
        System.arraycopy(s.starts, 0, starts, 0, at);
        System.arraycopy(s.ends, 0, ends, 0, at);
        System.arraycopy(s.lkeys, at + 1, keys, at, n - at);
        System.arraycopy(s.starts, at + 1, starts, at, n - at);
        System.arraycopy(s.ends, at + 1, ends, at, n - at);
        snapshot = new Snapshot(keys, starts, ends);
    }

    /** Copies {@code s} into the new arrays leaving slot {@code at} free ({@code skip} 1: it replaces an entry). */
    private static void copyAround(Snapshot s, int at, int skip, int[] keys, long[] starts, long[] ends) {
        System.arraycopy(s.lkeys, 0, keys, 0, at);
        System.arraycopy(s.starts, 0, starts, 0, at);
        System.arraycopy(s.ends, 0, ends, 0, at);
        int rest = s.lkeys.length - at - skip;
        System.arraycopy(s.lkeys, at + skip, keys, at + 1, rest);
        System.arraycopy(s.starts, at + skip, starts, at + 1, rest);
        System.arraycopy(s.ends, at + skip, ends, at + 1, rest);
    }

    /** Whether {@code [address, address + length)} lies in the region registered under {@code lkey}. */
    boolean contains(int lkey, long address, int length) {
        Snapshot s = snapshot;
        int i = Arrays.binarySearch(s.lkeys, lkey);
        return i >= 0 && address >= s.starts[i] && address + Integer.toUnsignedLong(length) <= s.ends[i];
    }
}
