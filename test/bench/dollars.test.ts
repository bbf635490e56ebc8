import { describe, expect, it } from "vitest";
import { DOLLAR_STRATEGIES, PRICE_SETS, simulateDollars } from "../../bench/dollars.js";
import { PrefixCache } from "../../bench/dollars-cache.js";
import { dollarRows, dollarTargets } from "../../bench/dollars-report.js";
import { generateTrajectory } from "../../bench/workload.js";
import { estimateMessageTokens } from "../../src/core/message-memo.js";
import { ConversationBuilder } from "../../src/testing/index.js";

describe("PrefixCache", () => {
  it("reads the longest byte-identical prefix of the previous request and writes the rest", () => {
    const messages = new ConversationBuilder()
      .user("a".repeat(400))
      .assistant("b".repeat(400))
      .user("c")
      .build();
    const tokens = messages.map(estimateMessageTokens);
    const cache = new PrefixCache(100);
    expect(cache.request(messages.slice(0, 2))).toEqual({
      inputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 100 + tokens[0]! + tokens[1]!,
      outputTokens: 0,
    });
    // Equal content in new objects still reads; the appended message and 7 extra tokens are written.
    const copies = messages.map((message) => ({ ...message, content: [...message.content] }));
    expect(cache.request(copies, 7)).toMatchObject({
      cacheReadInputTokens: 100 + tokens[0]! + tokens[1]!,
      cacheCreationInputTokens: tokens[2]! + 7,
    });
    // A change at the first message leaves only the system prompt and tools to read.
    const changed = [
      { ...copies[0]!, content: [{ type: "text" as const, text: "x" }] },
      ...copies.slice(1),
    ];
    expect(cache.request(changed).cacheReadInputTokens).toBe(100);
  });
});

describe("the dollar bench", () => {
  it("prices every strategy, deterministically, with trim-only as the baseline", async () => {
    const trajectory = generateTrajectory({ steps: 60, shape: "short-turns", seed: 7 });
    const names = ["trim", "default", "llm cached"];
    const strategies = DOLLAR_STRATEGIES.filter((strategy) => names.includes(strategy.name));
    const runs = [];
    for (const strategy of strategies) runs.push(await simulateDollars(trajectory, strategy));
    const again = await simulateDollars(trajectory, strategies[2]!);
    expect(again).toEqual(runs[2]);
    for (const run of runs) {
      expect(run.requests).toBe(60);
      for (const set of PRICE_SETS) expect(run.dollars[set.name]!.totalUsd).toBeGreaterThan(0);
      expect(run.cacheReadShare).toBeGreaterThan(0.5);
    }
    const rows = dollarRows(runs).rows;
    expect(rows[0]![1]).toMatch(/\(1\.00\)$/);
    expect(dollarTargets(runs).length).toBeGreaterThan(0);
  });
});
