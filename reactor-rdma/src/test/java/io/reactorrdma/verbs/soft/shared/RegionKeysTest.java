package io.reactorrdma.verbs.soft.shared;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Keys a peer cannot predict, and keys and addresses that do not collide across contexts. */
class RegionKeysTest {

    private static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;

    @Test
    void keysOfConsecutiveRegistrationsFollowNoStride() {
        try (SoftContext ctx = SoftContext.openLoopback(SoftConfig.defaults())) {
            ProtectionDomain pd = ctx.allocPd();
            List<MemoryRegion> live = new ArrayList<>();
            Set<Integer> keys = new HashSet<>();
            Set<Integer> strides = new HashSet<>();
            int previous = 0;
            for (int i = 0; i < 64; i++) {
                MemoryRegion mr = pd.allocate(4096, ACCESS);
                live.add(mr);
                assertThat(keys.add(mr.rkey())).as("key 0x%s is unique among the live regions", Integer.toHexString(mr.rkey())).isTrue();
                if (i > 0) {
                    strides.add(mr.rkey() - previous);
                }
                previous = mr.rkey();
            }
            // sequential keys (generation << 16 | index, slots in order) have one stride; random ones have ~63
            assertThat(strides).as("distinct differences between consecutive keys").hasSizeGreaterThan(48);
            live.forEach(MemoryRegion::close);
        }
    }

    @Test
    void reRegisteringASlotDrawsAnUnpredictableKey() {
        try (SoftContext ctx = SoftContext.openLoopback(SoftConfig.defaults().withMaxRegions(1))) {
            ProtectionDomain pd = ctx.allocPd();
            Set<Integer> strides = new HashSet<>();
            int previous = 0;
            for (int i = 0; i < 64; i++) {
                MemoryRegion mr = pd.allocate(4096, ACCESS);
                assertThat(mr.rkey()).as("a slot's next key differs from its last").isNotEqualTo(previous);
                if (i > 0) {
                    strides.add(mr.rkey() - previous);
                }
                previous = mr.rkey();
                mr.close();
            }
            assertThat(strides).as("distinct differences between a slot's consecutive keys").hasSizeGreaterThan(48);
        }
    }

    @Test
    void twoContextsGiveTheirRegionsDifferentAddressesAndKeys() {
        try (SoftContext a = SoftContext.openLoopback(SoftConfig.defaults());
             SoftContext b = SoftContext.openLoopback(SoftConfig.defaults())) {
            MemoryRegion ra = a.allocPd().allocate(1 << 20, AccessFlags.LOCAL_WRITE);
            MemoryRegion rb = b.allocPd().allocate(1 << 20, AccessFlags.LOCAL_WRITE);
            assertThat(ra.rkey()).as("first region keys of two contexts").isNotEqualTo(rb.rkey());
            assertThat(ra.address()).as("first region addresses of two contexts").isNotEqualTo(rb.address());
            assertThat(rb.address() + rb.length() <= ra.address() || ra.address() + ra.length() <= rb.address())
                    .as("the regions' address ranges do not overlap").isTrue();
            ra.close();
            rb.close();
        }
    }
}
