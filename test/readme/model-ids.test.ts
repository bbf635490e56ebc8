import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { contextWindowOf } from "../../src/models/model-limits.js";
import { pricingForModel } from "../../src/models/presets.js";
import { AgentSession } from "../../src/session/agent-session.js";

/** The model ids the README's code blocks use (string literals naming a Claude or GPT model). */
function readmeModelIds(markdown: string): string[] {
  const ids = new Set<string>();
  let inBlock = false;
  for (const line of markdown.split("\n")) {
    if (/^```/.test(line)) {
      inBlock = !inBlock && /^```(ts|typescript)\s*$/.test(line);
      continue;
    }
    if (!inBlock) continue;
    for (const [, id] of line.matchAll(/["'`]((?:claude|gpt)-[A-Za-z0-9.-]+)["'`]/g)) ids.add(id!);
  }
  return [...ids];
}

describe("the README's model ids", () => {
  const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");

  it("finds the ids (the check can fail)", () => {
    expect(readmeModelIds('```ts\nconst model = "gpt-5.6-luna";\n```\n')).toEqual(["gpt-5.6-luna"]);
    expect(contextWindowOf("gpt-5.6-luna")).toBeUndefined();
  });

  it("each has a known window and a price preset, so new AgentSession({ model }) works", () => {
    const ids = readmeModelIds(readme);
    expect(ids.length).toBeGreaterThan(2);
    for (const model of ids) {
      expect(contextWindowOf(model), model).toBeGreaterThan(0);
      expect(pricingForModel(model), model).toBeDefined();
      expect(new AgentSession({ model }).contextLimit, model).toBe(contextWindowOf(model));
    }
  });
});
