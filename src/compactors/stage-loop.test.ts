import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import { type Compactor, emptyCompactionResult } from "../core/compactor.js";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { HybridCompactor } from "./hybrid-compactor.js";
import { LLMCompactor } from "./llm-compactor.js";
import { contextAfter, runStages, stageDue, trustedTokensAfter } from "./stage-loop.js";
import { ThresholdCompactor } from "./threshold-compactor.js";
import { REDACTION_NOTICE } from "./tool-masking.js";

function history(turns: number, prose: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`request ${turn}`);
    builder.toolCall({ name: "grep", result: `match-${turn} `.repeat(200) });
    builder.assistant(`answer ${turn}${" reasoning".repeat(prose)}`);
  }
  return builder.build();
}

/** The hybrid's two stages, as its defaults build them: the summary due above the target. */
function stages(client: MockLlmClient) {
  return [
    new ThresholdCompactor({
      toolCompaction: "redact",
      targetUtilization: 0.5,
      keepRecentShare: 0.1,
    }),
    new LLMCompactor(client, {
      threshold: 0.5,
      targetUtilization: 0.5,
      keepRecentToolUses: false,
      keepRecentShare: 0.1,
    }),
  ];
}

const PRESET = { firstIsDue: true, readsSource: true };

describe("runStages", () => {
  it("is what HybridCompactor runs: the same stages give the same conversation", async () => {
    const conversation = history(8, 300);
    const used = estimateTokens(conversation);
    const context = { contextUsed: used, contextLimit: Math.ceil(used / 0.9) };
    const run = await runStages(
      stages(new MockLlmClient()),
      conversation,
      new Map(),
      context,
      PRESET,
    );
    const hybrid = await new HybridCompactor({
      client: new MockLlmClient(),
      toolCompaction: "redact",
      keepRecentToolUses: false,
    }).compactAsync(conversation, new Map(), context);
    expect(run.changed).toHaveLength(2);
    expect(hybrid.result.summarized).toBe(true);
    expect(run.conversation.map((message) => message.content)).toEqual(
      hybrid.conversation.map((message) => message.content),
    );
  });

  it("runs a later stage only when the context the one before left is above its threshold", async () => {
    const conversation = history(8, 0);
    const used = estimateTokens(conversation);
    const client = new MockLlmClient();
    const run = await runStages(
      stages(client),
      conversation,
      new Map(),
      { contextUsed: used, contextLimit: Math.ceil(used / 0.8) },
      PRESET,
    );
    expect(client.callCount).toBe(0);
    expect(run.changed).toHaveLength(1);
    expect(run.ran).toBeInstanceOf(ThresholdCompactor);
  });

  it("gives a later stage the conversation as the run got it, what the stage before replaced in it", async () => {
    const conversation = history(8, 300);
    const client = new MockLlmClient();
    await runStages(stages(client), conversation, new Map(), { trigger: "manual" }, PRESET);
    expect(client.lastRequest?.prompt).toContain("match-1 ");
    expect(client.lastRequest?.prompt).not.toContain(REDACTION_NOTICE);
  });

  it("is all or nothing: a failed stage rejects the run, nothing of the stages before applies", async () => {
    const conversation = history(8, 300);
    const client = new MockLlmClient().fail(new Error("down"));
    await expect(
      runStages(stages(client), conversation, new Map(), { trigger: "manual" }, PRESET),
    ).rejects.toSatisfy((error) => CompactionError.isInstance(error));
  });

  it("judges a stage on the run's overhead and what the stage before left", () => {
    const conversation = history(2, 0);
    const estimate = estimateTokens(conversation);
    const first = { contextUsed: estimate + 500, estimate, conversation };
    expect(contextAfter(first, conversation)).toBe(estimate + 500);
    const shorter = conversation.slice(0, 3);
    expect(contextAfter(first, shorter)).toBe(500 + estimateTokens(shorter));
    const [masking] = stages(new MockLlmClient());
    expect(stageDue(masking!, 10, { contextLimit: 100 })).toBe(false);
    expect(stageDue(masking!, 80, { contextLimit: 100 })).toBe(true);
    expect(stageDue(masking!, 10, { contextLimit: 100, trigger: "manual" })).toBe(true);
    expect(stageDue(masking!, 10, {})).toBe(true);
  });
});

describe("trustedTokensAfter", () => {
  it("is, for a masking stage of ours, the exact estimate of what it left, whatever its settings", () => {
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.record({
          toolCompaction: fc.constantFrom("redact", "summarize", "summarize_or_redact"),
          clearToolInputs: fc.boolean(),
          keepPathMentions: fc.boolean(),
          keepRecentToolUses: fc.constantFrom<number | false>(false, 1, 3),
          keepRecentTurns: fc.integer({ min: 1, max: 3 }),
          dropOldest: fc.boolean(),
        }),
        fc.double({ min: 0.05, max: 0.7, noNaN: true }),
        (conversation, settings, target) => {
          const compactor = new ThresholdCompactor({
            ...settings,
            threshold: 0.75,
            targetUtilization: target,
          });
          const contextUsed = estimateTokens(conversation);
          const context = { contextLimit: Math.max(1, Math.ceil(contextUsed / 0.9)), contextUsed };
          const output = compactor.compact(conversation, new Map(), context);
          expect(trustedTokensAfter(compactor, output)).toBe(estimateTokens(output.conversation));
        },
      ),
      { seed: 20261205, numRuns: 200 },
    );
  });

  it("is not taken from an app's compactor: runStages then measures what it left", async () => {
    const conversation = history(6, 10);
    const lying: Compactor = {
      isAsync: false,
      shouldCompact: () => true,
      compact: (messages) => ({
        conversation: messages.slice(1),
        result: { ...emptyCompactionResult(), tokensAfter: 1 },
      }),
    };
    expect(trustedTokensAfter(lying, lying.compact(conversation, new Map()))).toBeUndefined();
    const run = await runStages([lying], conversation, new Map(), {});
    expect(run.tokens).toBeUndefined();
    const ours = new ThresholdCompactor({ toolCompaction: "redact", keepRecentTurns: 1 });
    const masked = await runStages([ours], conversation, new Map(), {});
    expect(masked.changed).toHaveLength(1);
    expect(masked.tokens).toBe(estimateTokens(masked.conversation));
  });
});
