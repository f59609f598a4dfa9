package io.reactorrdma.examples.ps.demo.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A Markdown table built row by row, its columns padded so that it reads well as plain text too. */
public final class MarkdownTable {

    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    /** A table with these column headings. */
    public MarkdownTable(String... headings) {
        this.columns = headings.length;
        rows.add(headings.clone());
    }

    /** Adds a row; it must have one cell per column. */
    public MarkdownTable row(String... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("a row of " + cells.length + " cells in a table of " + columns + " columns: "
                    + Arrays.toString(cells));
        }
        rows.add(cells.clone());
        return this;
    }

    @Override
    public String toString() {
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(Math.max(width[c], r[c].length()), 3);
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < rows.size(); i++) {
            line(sb, rows.get(i), width);
            if (i == 0) {
                String[] rule = new String[columns];
                for (int c = 0; c < columns; c++) {
                    rule[c] = "-".repeat(width[c]);
                }
                line(sb, rule, width);
            }
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, String[] cells, int[] width) {
        sb.append('|');
        for (int c = 0; c < cells.length; c++) {
            sb.append(' ').append(cells[c]).append(" ".repeat(width[c] - cells[c].length())).append(" |");
        }
        sb.append('\n');
    }
}
