package io.reactorrdma.verbs.ffm.provider;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which scatter/gather entries may go inline: those inside the region their lkey names, as registered now. */
class RegionBoundsTest {

    @Test
    void anEntryPassesOnlyInsideTheRegionOfItsKeyWhileItIsRegistered() {
        RegionBounds bounds = new RegionBounds();
        bounds.add(7, 0x10000, 4096);
        bounds.add(3, 0x40000, 64);
        bounds.add(0xF0000001, 0x80000, 128); // a key above Integer.MAX_VALUE, as drivers give
        assertThat(bounds.contains(7, 0x10000, 4096)).isTrue();
        assertThat(bounds.contains(7, 0x10000 + 4090, 8)).as("past the end").isFalse();
        assertThat(bounds.contains(7, 0x10000 - 1, 2)).as("before the start").isFalse();
        assertThat(bounds.contains(3, 0x10000, 8)).as("another key's region").isFalse();
        assertThat(bounds.contains(0xF0000001, 0x80000 + 64, 64)).isTrue();
        assertThat(bounds.contains(9, 0x10000, 8)).as("an unknown key").isFalse();
        bounds.add(7, 0x20000, 16); // the key reused for another region replaces it
        assertThat(bounds.contains(7, 0x10000, 8)).isFalse();
        assertThat(bounds.contains(7, 0x20000, 16)).isTrue();
        bounds.remove(7);
        assertThat(bounds.contains(7, 0x20000, 16)).isFalse();
        assertThat(bounds.contains(3, 0x40000, 64)).isTrue();
        assertThat(bounds.contains(0xF0000001, 0x80000, 1)).isTrue();
        bounds.remove(42); // nothing registered under it: nothing changes
        assertThat(bounds.contains(3, 0x40000, 1)).isTrue();
    }
}
