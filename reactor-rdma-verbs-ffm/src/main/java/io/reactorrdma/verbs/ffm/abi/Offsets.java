package io.reactorrdma.verbs.ffm.abi;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/** Where a field lies in a struct of this package, by its path of C names ({@code "wr", "rdma", "rkey"}). */
public final class Offsets {

    private Offsets() {
    }

    /**
     * The byte offset of the field at {@code path} in {@code layout}.
     *
     * @throws IllegalArgumentException when the layout has no such field
     */
    public static long of(GroupLayout layout, String... path) {
        MemoryLayout.PathElement[] elements = new MemoryLayout.PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            elements[i] = MemoryLayout.PathElement.groupElement(path[i]);
        }
        return layout.byteOffset(elements);
    }
}
