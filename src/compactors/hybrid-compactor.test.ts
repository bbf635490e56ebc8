import { describe, expect, it } from "vitest";
import { CompactionError, ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { isSummaryTurn } from "../core/turn.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { createCompactor } from "./create-compactor.js";
import { HybridCompactor } from "./hybrid-compactor.js";
import { REDACTION_NOTICE } from "./tool-masking.js";

/** Turns of tool calls with big results and long assistant prose (which masking cannot shrink). */
function history(turns: number, prose = 0): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`request ${turn}`);
    for (let call = 1; call <= 3; call += 1)
      builder.toolCall({ name: "grep", result: `match-${turn}-${call} `.repeat(200) });
    builder.assistant(`answer ${turn}${" reasoning".repeat(prose)}`);
  }
  return builder.build();
}

const context = (conversation: readonly Message[], utilisation: number) => {
  const used = estimateTokens(conversation);
  return { contextUsed: used, contextLimit: Math.ceil(used / utilisation) };
};

describe("HybridCompactor", () => {
  it("masks only, without any LLM call, when masking reaches the target", async () => {
    const conversation = history(6);
    const client = new MockLlmClient();
    const { conversation: out, result } = await new HybridCompactor({
      client,
    }).compactAsync(conversation, new Map(), context(conversation, 0.8));
    expect(client.callCount).toBe(0);
    expect(result.summarized).toBe(false);
    expect(result.toolResultsRedacted).toBeGreaterThan(0);
    expect(out).toHaveLength(conversation.length);
    expect(validateConversation(out)).toEqual([]);
  });

  it("summarises when masking cannot reach the target, from the unmasked messages", async () => {
    const conversation = history(6, 1500);
    const client = new MockLlmClient().reply("handoff");
    const ctx = context(conversation, 0.8);
    const { conversation: out, result } = await new HybridCompactor({
      client,
      keepRecentToolUses: 2,
    }).compactAsync(conversation, new Map(), ctx);
    expect(client.callCount).toBe(1);
    expect(result.summarized).toBe(true);
    expect(result.turnsCompacted).toBeGreaterThanOrEqual(3);
    expect(isSummaryTurn(out[0]!.turnId)).toBe(true);
    expect(estimateTokens(out)).toBeLessThanOrEqual(0.5 * ctx.contextLimit);
    // The summariser saw real results, not redaction notices.
    expect(client.lastRequest?.prompt).toContain("match-1-1");
    expect(client.lastRequest?.prompt).not.toContain(REDACTION_NOTICE);
    // What was kept is masked beyond the 2 most recent tool uses.
    const kept = out.flatMap((message) =>
      message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
    );
    expect(kept.slice(-2).every((content) => content !== REDACTION_NOTICE)).toBe(true);
    expect(validateConversation(out)).toEqual([]);
  });

  it("always summarises in a manual compaction, and rejects if that fails", async () => {
    const conversation = history(6);
    const ok = new MockLlmClient();
    const manual = await new HybridCompactor({ client: ok }).compactAsync(conversation, new Map(), {
      trigger: "manual",
    });
    expect(manual.result.summarized).toBe(true);
    expect(ok.callCount).toBe(1);

    const failing = new MockLlmClient().fail(new Error("boom"));
    const error = await new HybridCompactor({ client: failing })
      .compactAsync(conversation, new Map(), { trigger: "manual" })
      .catch((reason: unknown) => reason);
    expect(CompactionError.isInstance(error)).toBe(true);
  });

  it("is all or nothing: when the summary fails it rejects, and masking is not applied either", async () => {
    const conversation = history(6, 1500);
    const frozen = structuredClone(conversation);
    const client = new MockLlmClient().fail(new Error("529"));
    const error = await new HybridCompactor({ client })
      .compactAsync(conversation, new Map(), context(conversation, 0.8))
      .catch((reason: unknown) => reason);
    expect(CompactionError.isInstance(error)).toBe(true);
    expect((error as CompactionError).code).toBe("llm_error");
    expect(conversation).toEqual(frozen);
  });

  it("without a context, masks and summarises what is old enough, and a second pass changes nothing", async () => {
    const client = new MockLlmClient();
    const compactor = new HybridCompactor({ client });
    const once = await compactor.compactAsync(history(6), new Map());
    expect(once.result.summarized).toBe(true);
    const twice = await compactor.compactAsync(once.conversation, new Map());
    expect(client.callCount).toBe(1);
    expect(twice.conversation).toEqual(once.conversation);
  });

  it("turns within-turn retention off with keepRecentToolUses: false, and routes every masking option", () => {
    // One long turn: with the default (10 recent tool uses kept) the old results of this very
    // turn are masked; with `false` only turns older than keepRecentTurns are.
    const builder = new ConversationBuilder().user("one long request");
    for (let call = 1; call <= 15; call += 1)
      builder.toolCall({ name: "grep", result: `match-${call} `.repeat(200) });
    const longTurn = builder.assistant("done").build();
    const client = new MockLlmClient();
    const masked = new HybridCompactor({ client }).compact(longTurn, new Map());
    expect(masked.result.toolResultsRedacted).toBe(5);
    const off = new HybridCompactor({ client, keepRecentToolUses: false });
    expect(off.config.keepRecentToolUses).toBe(false);
    const untouched = off.compact(longTurn, new Map());
    expect(untouched.result.toolResultsRedacted).toBe(0);
    expect(untouched.conversation).toEqual(longTurn);
    // A masking option the hybrid never listed by name still reaches the masking.
    const excluded = new HybridCompactor({ client, excludeTools: ["grep"] });
    expect(excluded.compact(longTurn, new Map()).result.toolResultsRedacted).toBe(0);
  });

  it("its synchronous compact masks only", () => {
    const { result } = new HybridCompactor({ client: new MockLlmClient() }).compact(
      history(6),
      new Map(),
    );
    expect(result.toolResultsRedacted).toBeGreaterThan(0);
    expect(result.turnsCompacted).toBe(0);
  });

  it("is built by createCompactor({ type: 'hybrid' }), which needs a client", () => {
    const compactor = createCompactor(
      { type: "hybrid", config: { targetUtilization: 0.4 } },
      new MockLlmClient(),
    );
    expect(compactor).toBeInstanceOf(HybridCompactor);
    expect(compactor.isAsync).toBe(true);
    expect((compactor as HybridCompactor).config).toMatchObject({
      threshold: 0.75,
      targetUtilization: 0.4,
      keepRecentToolUses: 10,
      toolCompaction: "summarize_or_redact",
    });
    expect(() => createCompactor({ type: "hybrid" })).toThrow("llmClient");
  });

  it("takes one options object with the client in it, and names what is missing", () => {
    const client = new MockLlmClient();
    expect(new HybridCompactor({ client, threshold: 0.6 }).config.threshold).toBe(0.6);
    expect(() => new HybridCompactor({} as never)).toThrow(/client: must be an LlmClient/);
    expect(() => new HybridCompactor(undefined as never)).toThrow(/client: must be an LlmClient/);
    expect(() => new (HybridCompactor as new (...args: unknown[]) => unknown)(client, {})).toThrow(
      /one object with the client in it/,
    );
  });

  it.each([
    [{ targetUtilization: 0.9 }, "targetUtilization"],
    [{ keepRecentToolUses: 0 }, "keepRecentToolUses"],
    [{ maxTranscriptTokens: 0 }, "maxTranscriptTokens"],
    [{ excludeTools: [1] }, "excludeTools"],
    [{ unknownOption: true }, "unknownOption"],
  ])("refuses %j naming %s", (config, field) => {
    const attempt = () =>
      new HybridCompactor({ client: new MockLlmClient(), ...(config as object) });
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(field);
  });
});
