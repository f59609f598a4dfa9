package io.reactorrdma.tools.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SizesTest {

    @Test
    void sizesTakeBinarySuffixes() {
        assertThat(Sizes.parse("--size", "64", 1L << 30)).isEqualTo(64);
        assertThat(Sizes.parse("--size", " 64K", 1L << 30)).isEqualTo(65536);
        assertThat(Sizes.parse("--size", "1m", 1L << 30)).isEqualTo(1 << 20);
        assertThat(Sizes.parse("--size", "1g", 1L << 30)).isEqualTo(1 << 30);
        assertThat(Sizes.format(65536)).isEqualTo("64k");
        assertThat(Sizes.format(1 << 30)).isEqualTo("1g");
        assertThat(Sizes.format(1500)).isEqualTo("1500");
    }

    @Test
    void badSizesSayWhatToWrite() {
        assertThatThrownBy(() -> Sizes.parse("--window", "64q", 1L << 30)).isInstanceOf(UsageException.class)
                .hasMessage("bad --window size '64q': use bytes with an optional binary suffix (64k = 65536, 1m)");
        assertThatThrownBy(() -> Sizes.parse("--window", "2g", 1L << 30)).hasMessage("bad --window size '2g': must be 1 byte .. 1g");
        assertThatThrownBy(() -> Sizes.parse("--window", "0", 1L << 30)).hasMessageContaining("must be 1 byte");
    }
}
