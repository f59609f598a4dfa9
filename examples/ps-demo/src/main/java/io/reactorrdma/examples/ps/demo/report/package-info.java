/**
 * The demo's report: Markdown tables, the CSV of every figure, the PNG charts (XChart, headless) and
 * {@code report.md} that holds them together with the command line, the date and the host.
 */
package io.reactorrdma.examples.ps.demo.report;
