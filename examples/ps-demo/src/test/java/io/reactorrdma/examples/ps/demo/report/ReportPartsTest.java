package io.reactorrdma.examples.ps.demo.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The CSV of figures (quoting, unknown values as empty cells) and the Markdown tables. */
class ReportPartsTest {

    @TempDir
    Path dir;

    @Test
    void figuresAreCsvWithQuotedCommasAndEmptyUnknowns() throws IOException {
        Figures f = new Figures();
        f.add("training", "rdma, window on", "push_p99", 1.25, "ms");
        f.add("inference", "tcp", "requests", 42, "requests");
        f.add("inference", "tcp", "server_cpu_per_request", Double.NaN, "us");
        f.write(dir.resolve("figures.csv"));
        assertThat(Files.readAllLines(dir.resolve("figures.csv"))).containsExactly(
                "phase,arm,metric,value,unit",
                "training,\"rdma, window on\",push_p99,1.25000,ms",
                "inference,tcp,requests,42,requests",
                "inference,tcp,server_cpu_per_request,,us");
        assertThat(f.value("inference", "tcp", "requests")).isEqualTo(42);
        assertThat(f.value("inference", "rdma", "requests")).isNaN();
    }

    @Test
    void markdownTablesPadTheirColumnsAndRefuseRaggedRows() {
        String t = new MarkdownTable("arm", "p99").row("rdma", "1.00").row("tcp", "12.50").toString();
        assertThat(t).isEqualTo("""
                | arm  | p99   |
                | ---- | ----- |
                | rdma | 1.00  |
                | tcp  | 12.50 |
                """);
        assertThatThrownBy(() -> new MarkdownTable("a", "b").row("only one"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a row of 1 cells in a table of 2 columns");
    }
}
