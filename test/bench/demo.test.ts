import { describe, expect, it } from "vitest";
import { renderContextChart } from "../../examples/demo-chart.js";
import { runDemo } from "../../examples/demo-session.js";

describe("renderContextChart", () => {
  it("draws bars, the threshold and target lines and the compaction marks", () => {
    const lines = renderContextChart({
      values: [10, 40, 80, 30, 60, 90, 20],
      limit: 100,
      threshold: 0.75,
      target: 0.5,
      compactions: new Map([
        [3, "M"],
        [6, "S"],
      ]),
      height: 8,
    });
    expect(lines).toHaveLength(8 + 3);
    expect(lines.find((line) => line.includes("threshold 75%"))).toContain("~");
    expect(lines.find((line) => line.includes("target 50%"))).toContain(".");
    expect(lines[9]!.trim()).toBe("M  S");
    expect(lines.join("\n")).toContain("#");
  });
});

describe("runDemo", () => {
  it("crosses the threshold several times, stays in the window and reports the savings", async () => {
    const lines: string[] = [];
    const summary = await runDemo({ write: (line) => lines.push(line) });
    const output = lines.join("\n");

    expect(summary.requests).toBe(160);
    expect(summary.maskings + summary.summaries).toBeGreaterThanOrEqual(3);
    expect(summary.summaries).toBeGreaterThanOrEqual(1);
    expect(summary.requestsOverWindow).toBe(0);
    expect(summary.billed).toBeLessThan(summary.billedWithout);
    expect(Math.max(...summary.contextPerRequest)).toBeLessThanOrEqual(64_000);
    expect(output).toMatch(/request +\d+: masked \d+ old tool result/);
    expect(output).toMatch(/request +\d+: summary by the LLM \(mock\)/);
    expect(output).toContain("threshold 75%");
    expect(output).toContain("target 50%");
    expect(lines.at(-1)).toMatch(/^Saved [\d,]+ of [\d,]+ input tokens \(\d+%\)/);
  });

  it("prints the same session every run", async () => {
    const first: string[] = [];
    const second: string[] = [];
    await runDemo({ write: (line) => first.push(line), requests: 60 });
    await runDemo({ write: (line) => second.push(line), requests: 60 });
    expect(second).toEqual(first);
  });
});
