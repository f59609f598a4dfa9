package io.reactorrdma.incast.topology;

import java.util.Set;

/**
 * The fabric's parameters, each declared once (the {@code DEFAULT_*} constants) and validated here.
 * Units are in the names: bits per second, picoseconds, bytes.
 *
 * @param linkBitsPerSecond  the host links' rate, and every link's on one switch
 *                           (default {@value #DEFAULT_LINK_BITS_PER_SECOND}); 8e12 must be a
 *                           multiple of it so that a byte's serialization is a whole number of picoseconds
 * @param linkDelayPs        every link's propagation delay (default {@value #DEFAULT_LINK_DELAY_PS} ps = 1 µs)
 * @param mtuBytes           payload bytes per packet (default {@value #DEFAULT_MTU_BYTES}; 256, 512, 1024, 2048 or 4096)
 * @param headerBytes        wire bytes added to each data packet: Ethernet, IPv4, UDP, BTH, ICRC, FCS, preamble and
 *                           inter-frame gap (default {@value #DEFAULT_HEADER_BYTES})
 * @param ackBytes           wire bytes of an ACK: the headers plus the AETH (default {@value #DEFAULT_ACK_BYTES})
 * @param pfcFrameBytes      wire bytes of a PFC frame (default {@value #DEFAULT_PFC_FRAME_BYTES})
 * @param ackEveryPackets    the receiver acknowledges every this many packets of a flow and always a message's last
 *                           packet (default {@value #DEFAULT_ACK_EVERY_PACKETS})
 * @param pfcEnabled         whether switches send PFC XOFF/XON (default true); without PFC an overflow of the
 *                           buffer is a model error
 * @param switchBufferBytes  each switch's shared buffer (default {@value #DEFAULT_SWITCH_BUFFER_BYTES} = 12 MiB)
 * @param reserveBytes       the buffer reserved per ingress port before shared use (default
 *                           {@value #DEFAULT_RESERVE_BYTES})
 * @param headroomBytes      PFC headroom per ingress port (default 3 × rate × link delay, 9375 B at 25 Gb/s and 1 µs,
 *                           raised to {@link #minimumHeadroom} where that is larger, as at MTU 4096); with PFC it
 *                           must be at least {@link #minimumHeadroom}
 * @param dtAlphaShift       the dynamic threshold is (buffer − Σheadroom − Σreserve − shared use) >> this (default
 *                           {@value #DEFAULT_DT_ALPHA_SHIFT}, α = 1/8)
 * @param xonOffsetBytes     XON is sent when the headroom is empty and shared use + this ≤ the threshold (default
 *                           {@value #DEFAULT_XON_OFFSET_BYTES})
 */
public record IncastConfig(long linkBitsPerSecond, long linkDelayPs, int mtuBytes, int headerBytes, int ackBytes,
                           int pfcFrameBytes, int ackEveryPackets, boolean pfcEnabled, long switchBufferBytes,
                           long reserveBytes, long headroomBytes, int dtAlphaShift, long xonOffsetBytes) {

    /** 25 Gb/s host links. */
    public static final long DEFAULT_LINK_BITS_PER_SECOND = 25_000_000_000L;
    /** 1 µs per link. */
    public static final long DEFAULT_LINK_DELAY_PS = 1_000_000L;
    /** RoCE MTU 1024 (4096 is the sensitivity option). */
    public static final int DEFAULT_MTU_BYTES = 1024;
    /** 1024 + 82 = 1106 wire bytes per full packet, so goodput is line rate × 1024/1106. */
    public static final int DEFAULT_HEADER_BYTES = 82;
    /** Headers plus the 4-byte AETH. */
    public static final int DEFAULT_ACK_BYTES = 86;
    /** A 64-byte MAC control frame plus preamble and inter-frame gap. */
    public static final int DEFAULT_PFC_FRAME_BYTES = 84;
    /** One ACK per 16 packets, and always one for a message's last packet. */
    public static final int DEFAULT_ACK_EVERY_PACKETS = 16;
    /** 12 MiB: a Trident II class shared buffer. */
    public static final long DEFAULT_SWITCH_BUFFER_BYTES = 12L * 1024 * 1024;
    /** 4 KiB reserved per ingress port. */
    public static final long DEFAULT_RESERVE_BYTES = 4096;
    /** Headroom = this × rate × link delay. */
    public static final int DEFAULT_HEADROOM_LINK_DELAYS = 3;
    /** α = 1/8. */
    public static final int DEFAULT_DT_ALPHA_SHIFT = 3;
    /** 3 KiB below the threshold before XON. */
    public static final long DEFAULT_XON_OFFSET_BYTES = 3072;

    private static final long PS_BITS_PER_SECOND = 8_000_000_000_000L;
    private static final Set<Integer> ROCE_MTUS = Set.of(256, 512, 1024, 2048, 4096);

    /** Validates every parameter; the message names the parameter, its value and what is allowed. */
    public IncastConfig {
        if (linkBitsPerSecond <= 0 || PS_BITS_PER_SECOND % linkBitsPerSecond != 0) {
            throw new IllegalArgumentException("linkBitsPerSecond " + linkBitsPerSecond + ": 8e12 must be a multiple of "
                    + "the rate so a byte takes whole picoseconds (10, 25, 40, 100, 200 or 400 Gb/s are)");
        }
        requirePositive("linkDelayPs", linkDelayPs);
        if (!ROCE_MTUS.contains(mtuBytes)) {
            throw new IllegalArgumentException("mtuBytes " + mtuBytes + ": use a RoCE MTU, one of 256, 512, 1024, 2048, 4096");
        }
        requirePositive("headerBytes", headerBytes);
        requirePositive("ackBytes", ackBytes);
        requirePositive("pfcFrameBytes", pfcFrameBytes);
        requirePositive("ackEveryPackets", ackEveryPackets);
        requirePositive("switchBufferBytes", switchBufferBytes);
        if (reserveBytes < 0 || headroomBytes < 0 || xonOffsetBytes < 0) {
            throw new IllegalArgumentException("reserveBytes " + reserveBytes + ", headroomBytes " + headroomBytes
                    + ", xonOffsetBytes " + xonOffsetBytes + ": none may be negative");
        }
        long minimum = minimumHeadroom(linkBitsPerSecond, linkDelayPs, mtuBytes + headerBytes, pfcFrameBytes);
        if (pfcEnabled && headroomBytes < minimum) {
            throw new IllegalArgumentException("headroomBytes " + headroomBytes + " is below what can arrive after an "
                    + "XOFF (" + minimum + " B: the packet that crossed the threshold and those started upstream "
                    + "before the XOFF reaches it): PFC would not be lossless; give at least " + minimum);
        }
        if (dtAlphaShift < 0 || dtAlphaShift > 16) {
            throw new IllegalArgumentException("dtAlphaShift " + dtAlphaShift + ": use 0..16 (3 means α = 1/8)");
        }
    }

    /** The defaults: 25 Gb/s, 1 µs, MTU 1024, PFC on, 12 MiB buffer. */
    public static IncastConfig defaults() {
        return new IncastConfig(DEFAULT_LINK_BITS_PER_SECOND, DEFAULT_LINK_DELAY_PS, DEFAULT_MTU_BYTES,
                DEFAULT_HEADER_BYTES, DEFAULT_ACK_BYTES, DEFAULT_PFC_FRAME_BYTES, DEFAULT_ACK_EVERY_PACKETS, true,
                DEFAULT_SWITCH_BUFFER_BYTES, DEFAULT_RESERVE_BYTES,
                headroomFor(DEFAULT_LINK_BITS_PER_SECOND, DEFAULT_LINK_DELAY_PS,
                        DEFAULT_MTU_BYTES + DEFAULT_HEADER_BYTES, DEFAULT_PFC_FRAME_BYTES), DEFAULT_DT_ALPHA_SHIFT,
                DEFAULT_XON_OFFSET_BYTES);
    }

    /**
     * The default headroom, bytes: {@value #DEFAULT_HEADROOM_LINK_DELAYS} × rate × delay, or
     * {@link #minimumHeadroom} where that is larger.
     */
    public static long headroomFor(long bitsPerSecond, long delayPs, int packetWireBytes, int pfcFrameBytes) {
        long rule = DEFAULT_HEADROOM_LINK_DELAYS * delayPs / (PS_BITS_PER_SECOND / bitsPerSecond);
        return Math.max(rule, minimumHeadroom(bitsPerSecond, delayPs, packetWireBytes, pfcFrameBytes));
    }

    /**
     * The most that can land in an ingress port's headroom, bytes: the packet that crossed the threshold, and every
     * packet the upstream port starts from the link delay plus a packet time before that moment until the XOFF frame
     * reaches it (frame time + link delay later) — floor((2 × rate × delay + frame) / packet) + 2 packets — all of
     * {@code packetWireBytes}.
     */
    public static long minimumHeadroom(long bitsPerSecond, long delayPs, int packetWireBytes, int pfcFrameBytes) {
        long twoDelaysBytes = 2 * delayPs / (PS_BITS_PER_SECOND / bitsPerSecond);
        return (long) packetWireBytes * ((twoDelaysBytes + pfcFrameBytes) / packetWireBytes + 3);
    }

    /** Picoseconds to serialize one byte on a link. */
    public long psPerByte() {
        return PS_BITS_PER_SECOND / linkBitsPerSecond;
    }

    /** Picoseconds to serialize {@code bytes}. */
    public long serializationPs(long bytes) {
        return bytes * psPerByte();
    }

    /** This config with PFC on or off. */
    public IncastConfig withPfc(boolean enabled) {
        return new IncastConfig(linkBitsPerSecond, linkDelayPs, mtuBytes, headerBytes, ackBytes, pfcFrameBytes,
                ackEveryPackets, enabled, switchBufferBytes, reserveBytes, headroomBytes, dtAlphaShift, xonOffsetBytes);
    }

    /** This config with another switch buffer size. */
    public IncastConfig withSwitchBufferBytes(long bytes) {
        return new IncastConfig(linkBitsPerSecond, linkDelayPs, mtuBytes, headerBytes, ackBytes, pfcFrameBytes,
                ackEveryPackets, pfcEnabled, bytes, reserveBytes, headroomBytes, dtAlphaShift, xonOffsetBytes);
    }

    /** This config with another MTU and the default headroom for it ({@link #headroomFor}). */
    public IncastConfig withMtuBytes(int mtu) {
        return new IncastConfig(linkBitsPerSecond, linkDelayPs, mtu, headerBytes, ackBytes, pfcFrameBytes,
                ackEveryPackets, pfcEnabled, switchBufferBytes, reserveBytes,
                headroomFor(linkBitsPerSecond, linkDelayPs, mtu + headerBytes, pfcFrameBytes), dtAlphaShift,
                xonOffsetBytes);
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " " + value + ": must be positive");
        }
    }
}
