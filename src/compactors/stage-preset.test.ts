import { describe, expect, it } from "vitest";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { HybridCompactor } from "./hybrid-compactor.js";
import { LLMCompactor } from "./llm-compactor.js";
import { maskThenSummarize } from "./stage-preset.js";
import { ThresholdCompactor } from "./threshold-compactor.js";

function history(turns: number, prose: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`request ${turn}`);
    builder.toolCall({ name: "grep", result: `match-${turn} `.repeat(200) });
    builder.assistant(`answer ${turn}${" reasoning".repeat(prose)}`);
  }
  return builder.build();
}

function stages(client: MockLlmClient) {
  return {
    // The hybrid's defaults: both stages keep the newest 10% of the window.
    masking: new ThresholdCompactor({
      toolCompaction: "redact",
      targetUtilization: 0.5,
      keepRecentShare: 0.1,
    }),
    summary: new LLMCompactor(client, {
      targetUtilization: 0.5,
      keepRecentToolUses: false,
      keepRecentShare: 0.1,
    }),
    targetUtilization: 0.5,
  };
}

describe("maskThenSummarize", () => {
  it("is what HybridCompactor runs: the same stages give the same conversation", async () => {
    const conversation = history(8, 300);
    const used = estimateTokens(conversation);
    const context = { contextUsed: used, contextLimit: Math.ceil(used / 0.9) };
    const preset = await maskThenSummarize(
      stages(new MockLlmClient()),
      conversation,
      new Map(),
      context,
    );
    const hybrid = await new HybridCompactor({
      client: new MockLlmClient(),
      toolCompaction: "redact",
      keepRecentToolUses: false,
    }).compactAsync(conversation, new Map(), context);
    expect(preset.result.summarized).toBe(true);
    expect(preset.conversation.map((message) => message.content)).toEqual(
      hybrid.conversation.map((message) => message.content),
    );
    expect(preset.result).toEqual(hybrid.result);
  });

  it("runs the summary stage only when masking misses the target", async () => {
    const conversation = history(8, 0);
    const used = estimateTokens(conversation);
    const client = new MockLlmClient();
    const output = await maskThenSummarize(stages(client), conversation, new Map(), {
      contextUsed: used,
      contextLimit: Math.ceil(used / 0.8),
    });
    expect(client.callCount).toBe(0);
    expect(output.result.summarized).toBe(false);
    expect(output.result.toolResultsRedacted).toBeGreaterThan(0);
  });

  it("is all or nothing: a failed summary leaves no masking behind", async () => {
    const conversation = history(8, 300);
    const client = new MockLlmClient().fail(new Error("down"));
    await expect(
      maskThenSummarize(stages(client), conversation, new Map(), { trigger: "manual" }),
    ).rejects.toSatisfy((error) => CompactionError.isInstance(error));
  });
});
