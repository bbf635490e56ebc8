/** What {@link renderContextChart} draws. */
export interface ContextChartInput {
  /** Context used by each request, in tokens. */
  values: readonly number[];
  /** The context window: the top of the chart. */
  limit: number;
  /** Compaction threshold, as a share of the window (drawn as `~`). */
  threshold: number;
  /** Where a compaction aims, as a share of the window (drawn as `.`). */
  target?: number;
  /** Request indexes where a compaction ran, and its kind (`M` masking, `S` summary). */
  compactions: ReadonlyMap<number, "M" | "S">;
  /** Columns of the plot. @default 100 */
  width?: number;
  /** Rows of the plot. @default 16 */
  height?: number;
}

function formatK(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens);
}

/**
 * An ASCII chart of context used per request: `#` bars, the threshold (`~`) and target (`.`)
 * lines, and under the axis `M` / `S` where a masking / summary compaction ran. When there are
 * more requests than columns, each column shows the largest request of its group.
 */
export function renderContextChart(input: ContextChartInput): string[] {
  const width = Math.min(input.width ?? 100, Math.max(1, input.values.length));
  const height = input.height ?? 16;
  const perColumn = Math.ceil(input.values.length / width);
  const columns = Math.ceil(input.values.length / perColumn);
  const peaks: number[] = [];
  const marks: string[] = [];
  for (let column = 0; column < columns; column += 1) {
    const from = column * perColumn;
    const group = input.values.slice(from, from + perColumn);
    peaks.push(Math.max(...group));
    let mark = " ";
    for (let index = from; index < from + perColumn; index += 1) {
      const kind = input.compactions.get(index);
      if (kind === "S" || (kind === "M" && mark === " ")) mark = kind;
    }
    marks.push(mark);
  }

  const rowOf = (tokens: number) => Math.min(height, Math.round((tokens / input.limit) * height));
  const thresholdRow = rowOf(input.threshold * input.limit);
  const targetRow = input.target === undefined ? -1 : rowOf(input.target * input.limit);
  const labelWidth = formatK(input.limit).length + 1;
  const lines: string[] = [];
  for (let row = height; row >= 1; row -= 1) {
    const tokens = Math.round((row / height) * input.limit);
    const label =
      row === height || row === thresholdRow || row === targetRow ? formatK(tokens) : "";
    let line = "";
    for (const peak of peaks) {
      if (rowOf(peak) >= row) line += "#";
      else if (row === thresholdRow) line += "~";
      else if (row === targetRow) line += ".";
      else line += " ";
    }
    const note =
      row === height
        ? " window"
        : row === thresholdRow
          ? ` threshold ${Math.round(input.threshold * 100)}%`
          : row === targetRow && input.target !== undefined
            ? ` target ${Math.round(input.target * 100)}%`
            : "";
    lines.push(`${label.padStart(labelWidth)} |${line}${note}`.trimEnd());
  }
  lines.push(`${"0".padStart(labelWidth)} +${"-".repeat(columns)}`);
  lines.push(`${" ".repeat(labelWidth)}  ${marks.join("").trimEnd()}`);
  const axis = `request 1${" ".repeat(Math.max(1, columns - 9 - String(input.values.length).length - 8))}request ${input.values.length}`;
  lines.push(`${" ".repeat(labelWidth)}  ${axis}`);
  return lines;
}
