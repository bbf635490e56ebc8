import { afterEach, describe, expect, it, vi } from "vitest";
import { CHARS_PER_TOKEN } from "../core/tokens.js";
import {
  CompactionError,
  DEFAULT_SUMMARY_PROMPT,
  estimateTokens,
  extractTurnIds,
  LLMCompactor,
  type Message,
  SUMMARY_PREFIX,
  SUMMARY_TURN_ID,
  ValidationError,
} from "../index.js";
import { ConversationBuilder, MockLlmClient } from "../testing/index.js";
import { EARLIER_USER_MESSAGE_PREFIX } from "./prompt.js";

function fiveTurns(): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= 5; turn += 1) {
    builder
      .user(`request ${turn}: never touch /etc`)
      .toolCall({
        name: "grep",
        input: { pattern: `needle-${turn}` },
        result: `match in /src/found-${turn}.ts:${turn * 10}`,
      })
      .assistant(`answer ${turn}`);
  }
  return builder.build();
}

async function expectCode(promise: Promise<unknown>, code: CompactionError["code"]) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(CompactionError.isInstance(error)).toBe(true);
  expect((error as CompactionError).code).toBe(code);
  return error as CompactionError;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("LLMCompactor", () => {
  it("has the seed's defaults", () => {
    const compactor = new LLMCompactor(new MockLlmClient());
    expect(compactor.config).toMatchObject({
      threshold: 0.75,
      keepRecentTurns: 3,
      maxSummaryTokens: 2048,
      summaryTimeoutMs: 60_000,
    });
    expect(compactor.isAsync).toBe(true);
    expect(compactor.shouldCompact(75, 100)).toBe(false);
    expect(compactor.shouldCompact(76, 100)).toBe(true);
  });

  it("replaces turns 1-2 of 5 with one summary message at turn u0, followed by the recent messages", async () => {
    const conversation = fiveTurns();
    const client = new MockLlmClient().reply("  The user wants needles found.  ");
    const { conversation: compacted, result } = await new LLMCompactor(client).compactAsync(
      conversation,
      new Map(),
    );
    expect(result).toMatchObject({ turnsCompacted: 2, toolResultsSummarized: 0 });
    const [summary, ...recent] = compacted;
    expect(summary).toMatchObject({
      role: "user",
      turnId: SUMMARY_TURN_ID,
      sessionId: "session-test",
    });
    expect(summary?.content[0]).toEqual({
      type: "text",
      text: `${SUMMARY_PREFIX}The user wants needles found.`,
    });
    // The recent part is the original messages of turns 3-5, the same objects.
    const firstRecent = conversation.findIndex((message) => message.turnId.number === 3);
    expect(recent).toEqual(conversation.slice(firstRecent));
    for (const [index, message] of recent.entries()) {
      expect(message).toBe(conversation[firstRecent + index]);
    }
    expect(extractTurnIds(compacted).map((turn) => turn.number)).toEqual([0, 3, 4, 5]);
  });

  it("sends the summarizer tool names, inputs and results, the system prompt and maxSummaryTokens", async () => {
    const client = new MockLlmClient();
    await new LLMCompactor(client, { maxSummaryTokens: 500 }).compactAsync(fiveTurns(), new Map());
    const request = client.lastRequest!;
    expect(request.system).toBe(DEFAULT_SUMMARY_PROMPT);
    expect(request.maxTokens).toBe(500);
    expect(request.signal).toBeInstanceOf(AbortSignal);
    for (const expected of [
      "request 1: never touch /etc",
      "request 2",
      "grep",
      "needle-1",
      "/src/found-2.ts:20",
      "answer 2",
    ]) {
      expect(request.prompt).toContain(expected);
    }
    expect(request.prompt).not.toContain("request 3");
    // The user's requests come before the transcript.
    expect(request.prompt.indexOf("request 1")).toBeLessThan(
      request.prompt.indexOf("<conversation>"),
    );
  });

  it("uses compact summaries for tool results where present, and the configured prompt", async () => {
    const conversation = new ConversationBuilder()
      .user("one")
      .toolCall({ name: "cat", result: "HUGE ".repeat(1000), compactSummary: "a big file" })
      .user("two")
      .build();
    const client = new MockLlmClient();
    await new LLMCompactor(client, {
      keepRecentTurns: 1,
      summarySystemPrompt: "Custom prompt",
    }).compactAsync(conversation, new Map());
    expect(client.lastRequest?.system).toBe("Custom prompt");
    expect(client.lastRequest?.prompt).toContain("a big file");
    expect(client.lastRequest?.prompt).not.toContain("HUGE HUGE");
  });

  it("cuts long tool inputs and results to their budget, marking the cut", async () => {
    const conversation = new ConversationBuilder()
      .user("one")
      .toolCall({ name: "write", input: { body: "i".repeat(10_000) }, result: "r".repeat(10_000) })
      .user("two")
      .build();
    const client = new MockLlmClient();
    await new LLMCompactor(client, {
      keepRecentTurns: 1,
      maxToolInputChars: 100,
      maxToolResultChars: 200,
    }).compactAsync(conversation, new Map());
    const prompt = client.lastRequest!.prompt;
    expect(prompt.length).toBeLessThan(2000);
    expect(prompt).toContain("truncated");
  });

  it("keeps the whole request within maxTranscriptTokens however long the history", async () => {
    const builder = new ConversationBuilder();
    for (let turn = 0; turn < 300; turn += 1) {
      builder
        .user(`request ${turn}`)
        .toolCall({ name: "read", result: "x".repeat(4000) })
        .assistant("y".repeat(2000));
    }
    const client = new MockLlmClient();
    await new LLMCompactor(client, { maxTranscriptTokens: 5000 }).compactAsync(
      builder.build(),
      new Map(),
    );
    expect(client.lastRequest!.prompt.length).toBeLessThanOrEqual(
      5000 * CHARS_PER_TOKEN + 5000 + 200,
    );
    // The latest compacted requests are still there.
    expect(client.lastRequest!.prompt).toContain("request 296");
  });

  it("rolls summaries forward: the earlier summary and its verbatim user messages reach the next summary", async () => {
    const client = new MockLlmClient().reply("first summary").reply("second summary");
    const compactor = new LLMCompactor(client, { keepRecentTurns: 2 });
    const builder = new ConversationBuilder();
    // Long answers, so that a summary is smaller than what it replaces.
    for (let turn = 1; turn <= 4; turn += 1)
      builder.user(`rule ${turn}`).assistant(`ok ${turn} ${"details ".repeat(40)}`);
    const once = await compactor.compactAsync(builder.build(), new Map());
    expect(once.conversation[0]?.content.map((block) => (block as { text: string }).text)).toEqual([
      `${SUMMARY_PREFIX}first summary`,
      `${EARLIER_USER_MESSAGE_PREFIX}rule 1`,
      `${EARLIER_USER_MESSAGE_PREFIX}rule 2`,
    ]);

    const more = new ConversationBuilder({ idPrefix: "more" });
    for (let turn = 1; turn <= 6; turn += 1) more.user(`later ${turn}`);
    const extended = [
      ...once.conversation,
      ...more.build().map((message, index) => ({
        ...message,
        turnId: { owner: "u", number: 5 + index },
      })),
    ];
    const twice = await compactor.compactAsync(extended, new Map());
    expect(client.lastRequest!.prompt).toContain("first summary");
    expect(client.lastRequest!.prompt).toContain("rule 1");
    // Turns 3-4 kept last time plus 5-8 of the new ones; 9-10 stay.
    expect(twice.result.turnsCompacted).toBe(6);
    const texts = twice.conversation[0]!.content.map((block) => (block as { text: string }).text);
    expect(texts[0]).toBe(`${SUMMARY_PREFIX}second summary`);
    expect(texts).toContain(`${EARLIER_USER_MESSAGE_PREFIX}rule 1`);
    expect(texts).toContain(`${EARLIER_USER_MESSAGE_PREFIX}later 4`);
    expect(twice.conversation.filter((message) => message.turnId.number === 0)).toHaveLength(1);
  });

  it("drops verbatim user messages, oldest first, before a summary would fail to shrink the conversation", async () => {
    const builder = new ConversationBuilder();
    for (let turn = 1; turn <= 5; turn += 1)
      builder.user(`Question ${turn}`).assistant(`Answer ${turn} ${"details ".repeat(10)}`);
    const conversation = builder.build();
    // Turns 1-2 take 84 tokens. With both questions kept verbatim this summary would take 90;
    // with the newer one only, 77.
    const summary = "Asked two questions.".padEnd(188, " Then more.");
    const { conversation: compacted, result } = await new LLMCompactor(
      new MockLlmClient().reply(summary),
    ).compactAsync(conversation, new Map());
    expect(result.turnsCompacted).toBe(2);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore!);
    expect(result.tokensAfter).toBe(estimateTokens(compacted));
    const texts = compacted[0]!.content.map((block) => (block as { text: string }).text);
    expect(texts).toEqual([
      `${SUMMARY_PREFIX}${summary}`,
      `${EARLIER_USER_MESSAGE_PREFIX}Question 2`,
    ]);
  });

  it("resolves unchanged with a skipReason when the summary would not shrink the conversation", async () => {
    const conversation = fiveTurns();
    const client = new MockLlmClient().reply("summary ".repeat(2000));
    const output = await new LLMCompactor(client).compactAsync(conversation, new Map());
    expect(client.callCount).toBe(1);
    expect(output.conversation).toEqual(conversation);
    expect(output.result).toMatchObject({ turnsCompacted: 0, toolResultsSummarized: 0 });
    expect(output.skipReason).toMatch(/would not shrink/);
  });

  it("does not ask for a summary when the foldable part is too small for one to gain anything", async () => {
    const builder = new ConversationBuilder();
    for (let turn = 1; turn <= 5; turn += 1)
      builder.user(`Question ${turn}`).assistant(`Answer ${turn}`);
    const conversation = builder.build();
    const client = new MockLlmClient();
    for (const trigger of ["auto", "manual"] as const) {
      const output = await new LLMCompactor(client).compactAsync(conversation, new Map(), {
        trigger,
      });
      expect(output.conversation).toEqual(conversation);
      expect(output.result.turnsCompacted).toBe(0);
      expect(output.skipReason).toMatch(/too small/);
    }
    expect(client.callCount).toBe(0);
  });

  it("says why whenever it changes nothing", async () => {
    const client = new MockLlmClient();
    const compactor = new LLMCompactor(client);
    const recentOnly = fiveTurns().filter((message) => message.turnId.number >= 3);
    const outputs = [
      await compactor.compactAsync(recentOnly, new Map()),
      await compactor.compactAsync(
        (await compactor.compactAsync(fiveTurns(), new Map())).conversation,
        new Map(),
      ),
      await new LLMCompactor(client, { clearAtLeast: 5000 }).compactAsync(fiveTurns(), new Map()),
      compactor.compact(fiveTurns()),
    ];
    for (const output of outputs) {
      expect(output.result.turnsCompacted).toBe(0);
      expect(output.skipReason).toEqual(expect.any(String));
    }
    expect(client.callCount).toBe(1);
  });

  it("is idempotent: an already compacted conversation is left alone without calling the LLM", async () => {
    const client = new MockLlmClient();
    const compactor = new LLMCompactor(client);
    const once = await compactor.compactAsync(fiveTurns(), new Map());
    const twice = await compactor.compactAsync(once.conversation, new Map());
    expect(twice.conversation).toEqual(once.conversation);
    expect(twice.result).toMatchObject({ turnsCompacted: 0, toolResultsSummarized: 0 });
    expect(twice.skipReason).toEqual(expect.any(String));
    expect(client.callCount).toBe(1);
  });

  it("never separates a tool_use from its tool_result, even with irregular turn numbers", async () => {
    // The tool call of turn 7 is answered in a message hand-numbered as turn 9.
    const builder = new ConversationBuilder()
      .inTurn({ owner: "agent", number: 1 })
      .user("first")
      .assistant(`a ${"long answer ".repeat(40)}`);
    builder
      .inTurn({ owner: "agent", number: 7 })
      .assistant([{ type: "tool_use", id: "call-1", name: "search", input: {} }]);
    builder
      .inTurn({ owner: "agent", number: 9 })
      .toolResults([
        { type: "tool_result", toolUseId: "call-1", content: "found", isError: false },
      ]);
    builder.inTurn({ owner: "agent", number: 10 }).assistant("done");
    const conversation = builder.build();
    const { conversation: compacted } = await new LLMCompactor(new MockLlmClient(), {
      keepRecentTurns: 2,
    }).compactAsync(conversation, new Map());
    const useIndex = compacted.findIndex((message) =>
      message.content.some((block) => block.type === "tool_use"),
    );
    const resultIndex = compacted.findIndex((message) =>
      message.content.some((block) => block.type === "tool_result"),
    );
    expect(resultIndex).toBe(useIndex + 1);
    expect(compacted[0]?.turnId).toEqual(SUMMARY_TURN_ID);
  });

  it("moves the cut back so the kept part never starts with a tool result", async () => {
    // One long turn: the only way to keep the latest turn is to keep it whole.
    const builder = new ConversationBuilder()
      .user("old")
      .assistant(`old answer ${"details ".repeat(40)}`)
      .user("do it");
    for (let call = 0; call < 5; call += 1)
      builder.toolCall({ name: "step", result: `step ${call}` });
    const conversation = builder.build();
    const { conversation: compacted } = await new LLMCompactor(new MockLlmClient(), {
      keepRecentTurns: 1,
    }).compactAsync(conversation, new Map());
    expect(compacted.slice(1)).toEqual(conversation.slice(2));
  });

  it("never mutates its input", async () => {
    const conversation = fiveTurns();
    const copy = structuredClone(conversation);
    await new LLMCompactor(new MockLlmClient()).compactAsync(conversation, new Map());
    expect(conversation).toEqual(copy);
  });

  it("maps a failing client to llm_error with the original as cause", async () => {
    const cause = new Error("529 overloaded");
    const error = await expectCode(
      new LLMCompactor(new MockLlmClient().fail(cause)).compactAsync(fiveTurns(), new Map()),
      "llm_error",
    );
    expect(error.cause).toBe(cause);
  });

  it("maps a client that throws synchronously to llm_error", async () => {
    const client = {
      complete: () => {
        throw new Error("sync failure");
      },
    };
    await expectCode(new LLMCompactor(client).compactAsync(fiveTurns(), new Map()), "llm_error");
  });

  it.each(["", "   \n\t "])("maps an empty summary (%j) to empty_summary", async (reply) => {
    await expectCode(
      new LLMCompactor(new MockLlmClient().reply(reply)).compactAsync(fiveTurns(), new Map()),
      "empty_summary",
    );
  });

  // Review 55b #5: a client that does not pass maxTokens on, its reply dropped as a summary that
  // would not shrink the conversation, and nothing reported.
  it("maps a summary over twice maxSummaryTokens by the estimate to summary_too_long", async () => {
    const maxSummaryTokens = 60;
    const atLimit = `Summary: ${"s".repeat(2 * maxSummaryTokens * CHARS_PER_TOKEN - 9)}`;
    const kept = await new LLMCompactor(new MockLlmClient().reply(` ${atLimit}\n`), {
      maxSummaryTokens,
    }).compactAsync(fiveTurns(), new Map());
    expect(kept.conversation[0]?.content[0]).toMatchObject({
      text: expect.stringContaining(atLimit),
    });
    const error = await expectCode(
      new LLMCompactor(new MockLlmClient().reply(`${atLimit}s`), {
        maxSummaryTokens,
      }).compactAsync(fiveTurns(), new Map()),
      "summary_too_long",
    );
    expect(error.message).toMatch(/about 121 tokens, over 2x maxSummaryTokens \(60\)/);
  });

  it("maps a hung client to timeout after summaryTimeoutMs, and aborts the request", async () => {
    vi.useFakeTimers();
    const client = new MockLlmClient().hang();
    const pending = new LLMCompactor(client, { summaryTimeoutMs: 1000 }).compactAsync(
      fiveTurns(),
      new Map(),
    );
    const settled = expectCode(pending, "timeout");
    await vi.advanceTimersByTimeAsync(999);
    expect(client.lastRequest?.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await settled;
    expect(client.lastRequest?.signal?.aborted).toBe(true);
  });

  it("uses injected timers for the deadline", async () => {
    const scheduled: { callback: () => void; ms: number }[] = [];
    const timers = {
      setTimeout: ((callback: () => void, ms: number) => {
        scheduled.push({ callback, ms });
        return scheduled.length;
      }) as unknown as typeof setTimeout,
      clearTimeout: (() => {}) as typeof clearTimeout,
    };
    const pending = new LLMCompactor(new MockLlmClient().hang(), {
      summaryTimeoutMs: 5000,
      timers,
    }).compactAsync(fiveTurns(), new Map());
    const settled = expectCode(pending, "timeout");
    await vi.waitFor(() => expect(scheduled).toHaveLength(1));
    expect(scheduled[0]?.ms).toBe(5000);
    scheduled[0]?.callback();
    await settled;
  });

  it("maps the caller's abort to aborted, before or during the call", async () => {
    const before = new AbortController();
    before.abort();
    const client = new MockLlmClient();
    await expectCode(
      new LLMCompactor(client).compactAsync(fiveTurns(), new Map(), { signal: before.signal }),
      "aborted",
    );
    expect(client.callCount).toBe(0);

    const during = new AbortController();
    const hanging = new MockLlmClient().hang();
    const pending = new LLMCompactor(hanging).compactAsync(fiveTurns(), new Map(), {
      signal: during.signal,
    });
    const settled = expectCode(pending, "aborted");
    await vi.waitFor(() => expect(hanging.callCount).toBe(1));
    during.abort(new Error("user cancelled"));
    await settled;
    expect(hanging.lastRequest?.signal?.aborted).toBe(true);
  });

  it("rejects with aborted when the caller aborts as the summary arrives", async () => {
    const controller = new AbortController();
    const client = new MockLlmClient({
      replies: [
        () => {
          controller.abort(new Error("user pressed Esc"));
          return "a summary that came back anyway";
        },
      ],
    });
    const conversation = fiveTurns();
    await expectCode(
      new LLMCompactor(client).compactAsync(conversation, new Map(), {
        signal: controller.signal,
      }),
      "aborted",
    );
    expect(client.callCount).toBe(1);
  });

  it("passes per-call instructions to the summarizer", async () => {
    const client = new MockLlmClient();
    await new LLMCompactor(client).compactAsync(fiveTurns(), new Map(), {
      instructions: "Keep every file path.",
    });
    expect(client.lastRequest?.prompt).toContain("Keep every file path.");
  });

  it.each([
    [{ threshold: 2 }, "threshold"],
    [{ keepRecentTurns: 0 }, "keepRecentTurns"],
    [{ maxSummaryTokens: -1 }, "maxSummaryTokens"],
    [{ summaryTimeoutMs: Number.POSITIVE_INFINITY }, "summaryTimeoutMs"],
    [{ summarySystemPrompt: 42 }, "summarySystemPrompt"],
  ])("refuses %j with a ValidationError naming %s", (config, field) => {
    const attempt = () => new LLMCompactor(new MockLlmClient(), config as never);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(field);
  });

  it("refuses a client without complete()", () => {
    expect(() => new LLMCompactor({} as never)).toThrow(ValidationError);
  });

  it("its synchronous compact() changes nothing", () => {
    const conversation = fiveTurns();
    const { conversation: same, result } = new LLMCompactor(new MockLlmClient()).compact(
      conversation,
    );
    expect(same).toEqual(conversation);
    expect(result.turnsCompacted).toBe(0);
  });
});
