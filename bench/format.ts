/** Formats a token count compactly: 950, 181k, 1.61M, 7.16B. */
export function formatTokens(value: number): string {
  if (value < 10_000) return String(Math.round(value));
  if (value < 1e6) return `${Math.round(value / 1000)}k`;
  if (value < 1e9) return `${(value / 1e6).toFixed(value < 1e8 ? 2 : 1)}M`;
  return `${(value / 1e9).toFixed(2)}B`;
}

/** Formats a share as a percentage with one decimal. */
export function formatPercent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** Formats milliseconds with a unit that keeps three significant digits. */
export function formatMs(value: number): string {
  if (value < 0.001) return `${(value * 1e6).toFixed(0)} ns`;
  if (value < 1) return `${(value * 1000).toFixed(1)} µs`;
  if (value < 100) return `${value.toFixed(2)} ms`;
  return `${value.toFixed(0)} ms`;
}

/** Renders rows as an aligned text table (numbers right-aligned, text left-aligned). */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const numeric = headers.map((_, column) =>
    rows.every((row) => /^[-+~<>]?[\d.,]+\s?([kMB%x]|ms|µs|ns|B)?$|^-$/.test(row[column] ?? "-")),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join("  ")
      .trimEnd();
  return [
    line(headers),
    widths.map((width) => "-".repeat(width)).join("  "),
    ...rows.map(line),
  ].join("\n");
}

/** Renders rows as a GitHub Markdown table. */
export function renderMarkdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const numeric = headers.map((_, column) =>
    rows.every((row) => /^[-+~<>]?[\d.,]+\s?([kMB%x]|ms|µs|ns|B)?$|^-$/.test(row[column] ?? "-")),
  );
  return [
    `| ${headers.join(" | ")} |`,
    `|${numeric.map((isNumber) => (isNumber ? "---:" : "---")).join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}
