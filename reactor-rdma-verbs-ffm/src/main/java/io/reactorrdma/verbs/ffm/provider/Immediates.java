package io.reactorrdma.verbs.ffm.provider;

import java.nio.ByteOrder;

/**
 * The byte order of immediate data: {@code imm_data} is {@code __be32}, so the sender writes {@code htonl(value)} and
 * the receiver reads {@code ntohl(imm_data)}, as the DiSNI provider does; peers of either provider agree.
 */
final class Immediates {

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private Immediates() {
    }

    static int toWire(int hostOrder) {
        return LITTLE_ENDIAN ? Integer.reverseBytes(hostOrder) : hostOrder;
    }

    static int fromWire(int wireOrder) {
        return LITTLE_ENDIAN ? Integer.reverseBytes(wireOrder) : wireOrder;
    }
}
