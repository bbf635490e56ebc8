import { describe, expect, it } from "vitest";
import { offlineModels, runLangChainAgent } from "../../examples/langchain-agent.js";
import { pairingProblems } from "../support/langchain-anthropic.js";

describe("examples/langchain-agent.ts", () => {
  it("runs offline: compacts between model calls, every request valid, the user's rule kept", async () => {
    const lines: string[] = [];
    const { model, summarizer, claude } = offlineModels();
    const { session, compactions, answer } = await runLangChainAgent({
      model,
      summarizer,
      log: (line) => lines.push(line),
    });

    expect(compactions.filter((event) => event.type === "compaction_end").length).toBeGreaterThan(
      0,
    );
    expect(compactions.some((event) => event.type === "compaction_failed")).toBe(false);
    expect(claude.refusals).toEqual([]);
    for (const call of claude.model.calls) expect(pairingProblems(call.messages)).toEqual([]);
    expect(lines.filter((line) => line.includes("→ read_file"))).toHaveLength(6);
    expect(answer).toMatch(/never modify files under vendor\//);
    expect(session.cost?.requests.count).toBe(claude.requests.length);
  });
});
