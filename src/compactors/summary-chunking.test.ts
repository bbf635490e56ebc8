import { describe, expect, it } from "vitest";
import { CompactionError, ValidationError } from "../core/errors.js";
import type { LlmRequest } from "../core/llm-client.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { CHARS_PER_TOKEN } from "../core/tokens.js";
import { isSummaryTurn, SUMMARY_TURN_ID } from "../core/turn.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { LLMCompactor } from "./llm-compactor.js";
import { DEFAULT_SUMMARY_PROMPT, SUMMARY_PREFIX } from "./prompt.js";

const BUDGET = 4000;

/** Turns of tool work; the first request states a rule every summary must carry. */
function history(turns: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(turn === 1 ? "Port the CLI to Rust. Never use unsafe." : `step ${turn}`);
    builder.toolCall({
      name: "read_file",
      input: { path: `/src/module-${turn}.rs` },
      result: `fn item_${turn}() {} // `.repeat(240),
    });
    builder.assistant(`Read module ${turn}; found item_${turn}.`);
  }
  return builder.build();
}

/** Tokens of one request as the budget counts them: system prompt and prompt, by characters. */
function requestTokens(request: LlmRequest): number {
  return Math.ceil(((request.system ?? "").length + request.prompt.length) / CHARS_PER_TOKEN);
}

describe("summarization that always fits", () => {
  it("summarizes a part 10x the budget in chunks and combines them, every request within budget", async () => {
    const conversation = history(40);
    const client = new MockLlmClient({
      defaultReply: (request, index) =>
        request.prompt.startsWith("Combine")
          ? "## Goal and constraints\nPort the CLI to Rust. Never use unsafe.\n## Done\nAll modules read."
          : `Part summary ${index + 1}: modules read, never use unsafe.`,
    });
    const compactor = new LLMCompactor(client, { maxTranscriptTokens: BUDGET, keepRecentTurns: 2 });
    const old = conversation.slice(
      0,
      conversation.findIndex((m) => m.turnId.number === 39),
    );
    expect(estimateTokens(old)).toBeGreaterThan(10 * BUDGET);

    const { conversation: out, result } = await compactor.compactAsync(conversation, new Map());

    expect(client.callCount).toBeGreaterThan(10);
    for (const request of client.requests)
      expect(requestTokens(request)).toBeLessThanOrEqual(BUDGET);
    // Every request carries the user's rule; the last one combines the parts.
    for (const request of client.requests) expect(request.prompt).toContain("Never use unsafe.");
    expect(client.lastRequest?.prompt.startsWith("Combine")).toBe(true);
    expect(client.lastRequest?.prompt).toContain("Part summary 1:");
    // Nothing was dropped: every module reached some part's request.
    const sent = client.requests.map((request) => request.prompt).join("\n");
    for (let turn = 1; turn <= 38; turn += 1) expect(sent).toContain(`/src/module-${turn}.rs`);

    expect(result.turnsCompacted).toBe(38);
    expect(out[0]?.turnId).toEqual(SUMMARY_TURN_ID);
    expect(out[0]?.content[0]).toMatchObject({
      text: expect.stringContaining(`${SUMMARY_PREFIX}## Goal and constraints`),
    });
    expect(validateConversation(out)).toEqual([]);
  });

  it("combines in rounds when the parts' summaries do not fit one request either", async () => {
    const conversation = history(60);
    const client = new MockLlmClient({
      defaultReply: (_request, index) => `summary ${index + 1} `.repeat(150),
    });
    const budget = 2500;
    await new LLMCompactor(client, {
      maxTranscriptTokens: budget,
      keepRecentTurns: 1,
    }).compactAsync(conversation, new Map());
    const combines = client.requests.filter((request) => request.prompt.startsWith("Combine"));
    expect(combines.length).toBeGreaterThan(1);
    for (const request of client.requests)
      expect(requestTokens(request)).toBeLessThanOrEqual(budget);
    expect(client.lastRequest?.prompt).toContain("into one handoff summary");
  });

  it("with summaryOverflow truncate, sends one request that drops the oldest items", async () => {
    const client = new MockLlmClient();
    await new LLMCompactor(client, {
      maxTranscriptTokens: BUDGET,
      summaryOverflow: "truncate",
    }).compactAsync(history(40), new Map());
    expect(client.callCount).toBe(1);
    expect(requestTokens(client.lastRequest!)).toBeLessThanOrEqual(BUDGET);
    expect(client.lastRequest?.prompt).toMatch(/truncated|omitted/);
  });

  it("fails as a whole when one part fails, cancelling the others, and changes nothing", async () => {
    const client = new MockLlmClient()
      .reply("part 1")
      .fail(new Error("529 overloaded"))
      .hang()
      .hang()
      .hang();
    const conversation = history(40);
    const error = await new LLMCompactor(client, { maxTranscriptTokens: BUDGET })
      .compactAsync(conversation, new Map())
      .catch((reason: unknown) => reason);
    expect(CompactionError.isInstance(error)).toBe(true);
    expect((error as CompactionError).code).toBe("llm_error");
    // At most the 4 in flight, plus one a worker picked up before the failure arrived.
    expect(client.requests.length).toBeLessThanOrEqual(5);
    expect(client.requests.slice(2).every((request) => request.signal?.aborted)).toBe(true);
    expect(conversation).toEqual(history(40));
  });

  it("fails with summary_too_long when one part's summary is far over maxSummaryTokens", async () => {
    const client = new MockLlmClient({ defaultReply: "part summary" })
      .reply("part 1")
      .reply("far too long ".repeat(100));
    const error = await new LLMCompactor(client, {
      maxTranscriptTokens: BUDGET,
      maxSummaryTokens: 100,
    })
      .compactAsync(history(40), new Map())
      .catch((reason: unknown) => reason);
    expect(CompactionError.isInstance(error) && error.code).toBe("summary_too_long");
    expect(client.requests.every((request) => request.maxTokens === 100)).toBe(true);
  });

  it("rejects with aborted when the signal fires between the parts and the combine step", async () => {
    const controller = new AbortController();
    const client = new MockLlmClient({
      defaultReply: (request) => {
        const part = /^Summarize part (\d+) of (\d+)/.exec(request.prompt);
        // The last part's summary arrives, then the caller aborts before anything is combined.
        if (part !== null && part[1] === part[2]) controller.abort(new Error("user left"));
        return "part summary";
      },
    });
    const error = await new LLMCompactor(client, { maxTranscriptTokens: BUDGET })
      .compactAsync(history(40), new Map(), { signal: controller.signal })
      .catch((reason: unknown) => reason);
    expect(CompactionError.isInstance(error) && error.code).toBe("aborted");
    expect(client.requests.length).toBeGreaterThan(1);
    expect(client.requests.some((request) => request.prompt.startsWith("Combine"))).toBe(false);
  });

  it("refuses a bad summaryOverflow naming the field", () => {
    const attempt = () =>
      new LLMCompactor(new MockLlmClient(), { summaryOverflow: "drop" as never });
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow("summaryOverflow");
  });
});

describe("structured handoff prompt", () => {
  it("asks for goal and constraints, decisions, files and identifiers, errors and fixes, done, pending, current work and next step", () => {
    for (const heading of [
      "## Goal and constraints",
      "## Decisions",
      "## Files and code",
      "## Errors and fixes",
      "## Done",
      "## Pending",
      "## Current work",
      "## Next step",
    ])
      expect(DEFAULT_SUMMARY_PROMPT).toContain(heading);
  });
});

describe("LLMCompactor targetUtilization and clearAtLeast", () => {
  /** One long turn after a short old one: the old turn alone cannot reach the target. */
  function longTurn(): Message[] {
    const builder = new ConversationBuilder()
      .user("old request")
      .assistant(`old answer ${"details ".repeat(1500)}`);
    builder.user("Migrate every table; keep the audit log.");
    for (let call = 1; call <= 30; call += 1)
      builder.toolCall({
        name: "migrate",
        input: { table: `t${call}` },
        result: `ok `.repeat(300),
      });
    builder.assistant([
      { type: "tool_use", id: "pending-1", name: "migrate", input: { table: "t31" } },
    ]);
    return builder.build();
  }

  it("folds messages of the latest turn when needed, keeping its request and pending exchange verbatim", async () => {
    const conversation = longTurn();
    const total = estimateTokens(conversation);
    const contextLimit = Math.ceil(total / 0.8);
    const client = new MockLlmClient().reply("migrated t1..t20");
    const compactor = new LLMCompactor(client, {
      keepRecentTurns: 1,
      targetUtilization: 0.5,
      maxSummaryTokens: 200,
      keepUserMessagesTokens: 100,
    });
    const { conversation: out, result } = await compactor.compactAsync(conversation, new Map(), {
      contextLimit,
      contextUsed: total,
    });
    expect(estimateTokens(out)).toBeLessThanOrEqual(0.5 * contextLimit);
    expect(result.turnsCompacted).toBe(2);
    expect(isSummaryTurn(out[0]!.turnId)).toBe(true);
    // The latest request right after the summary, the same object; the pending exchange last.
    const request = conversation.find(
      (m) => m.content[0]?.type === "text" && m.turnId.number === 2,
    );
    expect(out[1]).toBe(request);
    expect(out.at(-1)).toBe(conversation.at(-1));
    expect(validateConversation(out)).toEqual([]);
    // The summariser saw the folded steps but not the kept ones.
    expect(client.lastRequest?.prompt).toContain('"table":"t1"');
    expect(client.lastRequest?.prompt).not.toContain('"table":"t31"');
    // Once at the target, compacting again changes nothing.
    const again = await compactor.compactAsync(out, new Map(), {
      contextLimit,
      contextUsed: estimateTokens(out),
    });
    expect(again.result.turnsCompacted).toBe(0);
    expect(client.callCount).toBe(1);
  });

  it("without a context, folds only the turns older than keepRecentTurns", async () => {
    const conversation = longTurn();
    const client = new MockLlmClient();
    const { conversation: out } = await new LLMCompactor(client, {
      keepRecentTurns: 1,
      targetUtilization: 0.5,
    }).compactAsync(conversation, new Map());
    expect(out.slice(1)).toEqual(conversation.slice(2));
  });

  it("with clearAtLeast, does not ask for a summary that would free too little", async () => {
    const builder = new ConversationBuilder();
    for (let turn = 1; turn <= 4; turn += 1)
      builder.user(`r${turn}`).assistant(`a${turn} ${"x".repeat(4000)}`);
    const conversation = builder.build();
    const client = new MockLlmClient();
    // One old turn of ~1000 tokens, less a summary of up to 2048: nowhere near 500 freed.
    const compactor = new LLMCompactor(client, { clearAtLeast: 500 });
    const {
      conversation: out,
      result,
      skipReason,
    } = await compactor.compactAsync(conversation, new Map());
    expect(client.callCount).toBe(0);
    expect(out).toEqual(conversation);
    expect(result.turnsCompacted).toBe(0);
    expect(skipReason).toMatch(/clearAtLeast/);
    // A manual compaction was asked for: it goes ahead.
    await compactor.compactAsync(conversation, new Map(), { trigger: "manual" });
    expect(client.callCount).toBe(1);
  });

  it.each([
    [{ targetUtilization: 0.9 }, "targetUtilization"],
    [{ targetUtilization: -0.1 }, "targetUtilization"],
    [{ clearAtLeast: -5 }, "clearAtLeast"],
  ])("refuses %j naming %s", (config, field) => {
    const attempt = () => new LLMCompactor(new MockLlmClient(), config);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(field);
  });
});
