import { describe, expect, it } from "vitest";
import { renderTable } from "../../bench/format.js";
import { trajectoryRows } from "../../bench/report.js";
import { type RunMetrics, type SimulationSettings, simulate } from "../../bench/simulate.js";
import { measureSpeed } from "../../bench/speed.js";
import { STRATEGIES, type Strategy } from "../../bench/strategies.js";
import { deterministicSummary } from "../../bench/summariser.js";
import { speedTargets, trajectoryTargets } from "../../bench/targets.js";
import { generateTrajectory, type WorkloadShape } from "../../bench/workload.js";

// Small sizes: a 30k window and tool outputs a tenth of the real bench's.
const SETTINGS: SimulationSettings = { contextLimit: 30_000, systemTokens: 1000 };
const small = (shape: WorkloadShape, steps = 80) =>
  generateTrajectory({
    steps,
    shape,
    seed: 7,
    outputMedianTokens: 150,
    outputP99Tokens: 2500,
    outputMaxTokens: 3000,
  });
const strategy = (name: string): Strategy => {
  const found = STRATEGIES.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no strategy ${name}`);
  return found;
};

describe("generateTrajectory", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    const a = generateTrajectory({ steps: 40, shape: "short-turns", seed: 1 });
    const b = generateTrajectory({ steps: 40, shape: "short-turns", seed: 1 });
    const c = generateTrajectory({ steps: 40, shape: "short-turns", seed: 2 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a.steps)).not.toBe(JSON.stringify(c.steps));
  });

  it("makes tool output most of the tokens and plants findable facts", () => {
    const trajectory = generateTrajectory({ steps: 200, shape: "short-turns", seed: 3 });
    expect(trajectory.observationShare).toBeGreaterThan(0.75);
    expect(trajectory.observationShare).toBeLessThan(0.95);
    expect(trajectory.steps).toHaveLength(200);
    expect(trajectory.steps.at(-1)?.calls).toEqual([]);
    expect(new Set(trajectory.facts.map((fact) => fact.kind))).toEqual(
      new Set(["id", "path", "number", "constraint"]),
    );
    const summary = deterministicSummary({
      prompt: trajectory.facts.map((fact) => fact.text).join(" filler "),
      maxTokens: 100_000,
    });
    for (const fact of trajectory.facts) expect(summary).toContain(fact.text);
  });

  it("keeps one turn in the long-turn shape", () => {
    const trajectory = small("long-turn", 30);
    expect(trajectory.steps.filter((step) => step.userText !== undefined)).toHaveLength(1);
  });
});

describe("simulate", () => {
  const check = (run: RunMetrics) => {
    expect(run.requests).toBe(run.steps);
    expect(run.billedInputTokens).toBe(
      run.requestTokens + run.summariserInputTokens + run.summariserOutputTokens,
    );
    expect(run.cacheReadTokens + run.cacheWriteTokens).toBe(run.requestTokens);
    expect(run.peakContext).toBeGreaterThanOrEqual(run.finalContext);
    expect(run.factsKept).toBeLessThanOrEqual(run.factsKeptOrHanded);
    expect(run.factsKeptOrHanded).toBeLessThanOrEqual(run.facts);
    expect(run.failedCompactions).toBe(0);
  };

  it("without compaction keeps every fact and overflows a small window", async () => {
    const run = await simulate(small("short-turns"), strategy("none"), SETTINGS);
    check(run);
    expect(run.compactions).toBe(0);
    expect(run.factsKept).toBe(run.facts);
    expect(run.requestsOverWindow).toBeGreaterThan(0);
    expect(run.prefixBreaks).toBe(0);
  });

  it.each(["short-turns", "long-turn"] as const)(
    "keeps the summarising beyond-the-seed strategies inside the window (%s)",
    async (shape) => {
      const trajectory = small(shape);
      const none = await simulate(trajectory, strategy("none"), SETTINGS);
      for (const candidate of STRATEGIES.filter((entry) => entry.origin === "beyond")) {
        const run = await simulate(trajectory, candidate, SETTINGS);
        check(run);
        expect(run.compactions, candidate.name).toBeGreaterThan(0);
        expect(run.billedInputTokens, candidate.name).toBeLessThan(none.billedInputTokens);
        // Masking alone cannot bound the context: reasoning and tool calls keep growing.
        if (run.summariserCalls > 0) expect(run.requestsOverWindow, candidate.name).toBe(0);
        else expect(run.requestsOverWindow, candidate.name).toBeLessThan(none.requestsOverWindow);
      }
    },
  );

  it("bills the summariser and is deterministic", async () => {
    const trajectory = small("short-turns");
    const first = await simulate(trajectory, strategy("llm"), SETTINGS);
    const second = await simulate(trajectory, strategy("llm"), SETTINGS);
    check(first);
    expect(first.summariserCalls).toBeGreaterThan(0);
    expect(first.summariserShare).toBeGreaterThan(0);
    expect(first.requestsOverWindow).toBe(0);
    expect(second).toEqual(first);
  });

  it("feeds the tables and the targets", async () => {
    const trajectory = small("short-turns", 40);
    const runs = [
      await simulate(trajectory, strategy("none"), SETTINGS),
      await simulate(trajectory, strategy("hybrid"), SETTINGS),
    ];
    const table = renderTable(
      ["steps", "strategy"],
      trajectoryRows(runs).map((row) => row.slice(0, 2)),
    );
    expect(table).toContain("hybrid");
    const checks = trajectoryTargets(runs);
    expect(checks.map((entry) => entry.target)).toContain(
      "hybrid: 0 requests over the window in every run",
    );
    expect(checks.every((entry) => typeof entry.pass === "boolean")).toBe(true);
  });
});

describe("measureSpeed", () => {
  // Every part runs with its warm-ups and a collection before each run: about 30 s on two
  // cores alone, longer beside other work; a time limit, not a timing assertion.
  it("measures every part on a tiny conversation (no timing assertions)", async () => {
    const rows = await measureSpeed({ sizes: [100, 200], samples: () => 1 });
    expect(rows.map((row) => row.messages)).toEqual([100, 200]);
    for (const row of rows) {
      expect(Object.keys(row.compact)).toEqual(
        expect.arrayContaining(["summarize", "redact", "LLM (mock)", "redact (LangChain in/out)"]),
      );
      expect(row.maybeCompactUnder.samples).toBeGreaterThan(0);
      expect(Number.isFinite(row.maybeCompactOver.medianMs)).toBe(true);
      expect(Object.keys(row.step ?? {})).toEqual([
        "Anthropic",
        "Responses",
        "Gemini",
        "Chat Completions",
        "AI SDK",
      ]);
    }
    expect(speedTargets(rows)).toEqual([]);
  }, 180_000);
});
