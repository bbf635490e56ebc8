import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import type { Message, ToolResultBlock, ToolUseBlock } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder } from "../testing/builders.js";
import { CLEARED_INPUT_KEY, clearedToolInput, isClearedToolInput } from "./cleared-tool-input.js";
import { type CompactionConfig, ThresholdCompactor } from "./threshold-compactor.js";
import { REDACTION_NOTICE } from "./tool-masking.js";

/** One turn: a request and `calls` sequential tool calls with big results, then an answer. */
function longTurn(calls: number, options: { name?: (index: number) => string } = {}): Message[] {
  const builder = new ConversationBuilder().user("Refactor the parser; never touch /etc");
  for (let index = 1; index <= calls; index += 1) {
    builder.toolCall({
      name: options.name?.(index) ?? "read_file",
      input: { path: `/src/file-${index}.ts`, body: "b".repeat(400) },
      result: `contents ${index} `.repeat(300),
    });
  }
  return builder.build();
}

function results(conversation: readonly Message[]): ToolResultBlock[] {
  return conversation.flatMap((message) =>
    message.content.filter((block): block is ToolResultBlock => block.type === "tool_result"),
  );
}

function uses(conversation: readonly Message[]): ToolUseBlock[] {
  return conversation.flatMap((message) =>
    message.content.filter((block): block is ToolUseBlock => block.type === "tool_use"),
  );
}

function expectValid(conversation: readonly Message[]) {
  expect(validateConversation(conversation)).toEqual([]);
}

describe("keepRecentToolUses (within-turn retention)", () => {
  it("is off by default: one long turn is left alone, as in the seed", () => {
    const conversation = longTurn(20);
    const { conversation: out, result } = new ThresholdCompactor({
      toolCompaction: "redact",
    }).compact(conversation, new Map());
    expect(result.toolResultsRedacted).toBe(0);
    expect(out).toEqual(conversation);
  });

  it("compacts results older than the K most recent tool uses, even inside the latest turn", () => {
    const conversation = longTurn(20);
    const { conversation: out, result } = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 5,
    }).compact(conversation, new Map());
    expect(result.toolResultsRedacted).toBe(15);
    const contents = results(out).map((block) => block.content);
    expect(contents.slice(0, 15).every((content) => content === REDACTION_NOTICE)).toBe(true);
    expect(contents.slice(15)).toEqual(
      results(conversation)
        .slice(15)
        .map((b) => b.content),
    );
    expectValid(out);
    expect(estimateTokens(out)).toBeLessThan(estimateTokens(conversation) / 2);
  });

  it("never touches the latest turn's newest results, even a parallel batch larger than K", () => {
    const builder = new ConversationBuilder().user("go");
    builder.toolCall({ name: "a", result: "old ".repeat(100) });
    builder.toolCalls([
      { name: "b", result: "new 1 ".repeat(100) },
      { name: "b", result: "new 2 ".repeat(100) },
      { name: "b", result: "new 3 ".repeat(100) },
    ]);
    const conversation = builder.build();
    const { conversation: out, result } = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 1,
    }).compact(conversation, new Map());
    expect(result.toolResultsRedacted).toBe(1);
    expect(out.at(-1)).toBe(conversation.at(-1));
    expect(results(out)[0]?.content).toBe(REDACTION_NOTICE);
  });

  it("still compacts every old turn's results, whatever K", () => {
    const builder = new ConversationBuilder();
    for (let turn = 1; turn <= 5; turn += 1)
      builder.user(`request ${turn}`).toolCall({ name: "t", result: `r${turn} `.repeat(50) });
    const { result } = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 100,
    }).compact(builder.build(), new Map());
    expect(result.toolResultsRedacted).toBe(2);
  });

  it("is idempotent and pure", () => {
    const conversation = longTurn(30);
    const frozen = structuredClone(conversation);
    const compactor = new ThresholdCompactor({ toolCompaction: "redact", keepRecentToolUses: 3 });
    const once = compactor.compact(conversation, new Map());
    const twice = compactor.compact(once.conversation, new Map());
    expect(conversation).toEqual(frozen);
    expect(twice.conversation).toEqual(once.conversation);
    expect(twice.result).toMatchObject({ toolResultsRedacted: 0, toolResultsSummarized: 0 });
  });

  it.each([0, -1, 1.5, "3", Number.NaN])(
    "refuses keepRecentToolUses %j naming the field",
    (keep) => {
      const attempt = () => new ThresholdCompactor({ keepRecentToolUses: keep as number });
      expect(attempt).toThrow(ValidationError);
      expect(attempt).toThrow("keepRecentToolUses");
    },
  );
});

describe("targetUtilization (hysteresis)", () => {
  it("compacts oldest first and stops once the estimate is at or below the target", () => {
    const conversation = longTurn(20);
    const total = estimateTokens(conversation);
    const contextLimit = Math.ceil(total / 0.8);
    const compactor = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 2,
      targetUtilization: 0.5,
    });
    const { conversation: out, result } = compactor.compact(conversation, new Map(), {
      contextLimit,
      contextUsed: total,
    });
    expect(estimateTokens(out)).toBeLessThanOrEqual(0.5 * contextLimit);
    // Oldest first, and not more than needed: fewer than all 18 eligible results.
    expect(result.toolResultsRedacted).toBeGreaterThan(0);
    expect(result.toolResultsRedacted).toBeLessThan(18);
    const redacted = results(out).map((block) => block.content === REDACTION_NOTICE);
    expect(redacted.indexOf(false)).toBe(result.toolResultsRedacted);
    // Undoing the last redaction would put it back above the target.
    const last = results(out)[result.toolResultsRedacted - 1]!;
    const original = results(conversation)[result.toolResultsRedacted - 1]!;
    const undone = estimateTokens(out) + (original.content.length - last.content.length) / 4;
    expect(undone).toBeGreaterThan(0.5 * contextLimit);
    // A manual compaction ignores the target.
    const manual = compactor.compact(conversation, new Map(), {
      contextLimit,
      contextUsed: total,
      trigger: "manual",
    });
    expect(manual.result.toolResultsRedacted).toBe(18);
  });

  it("counts what the measure holds beyond the messages (system prompt, tools) against the target", () => {
    const conversation = longTurn(20);
    const total = estimateTokens(conversation);
    const contextLimit = total * 2;
    const compactor = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 2,
      targetUtilization: 0.5,
    });
    const lean = compactor.compact(conversation, new Map(), { contextLimit, contextUsed: total });
    expect(lean.result.toolResultsRedacted).toBe(0);
    const heavy = compactor.compact(conversation, new Map(), {
      contextLimit,
      contextUsed: total + contextLimit / 4,
    });
    expect(heavy.result.toolResultsRedacted).toBeGreaterThan(0);
    expect(estimateTokens(heavy.conversation) + contextLimit / 4).toBeLessThanOrEqual(
      contextLimit / 2,
    );
  });

  it("without a context (or in a manual compaction) compacts everything eligible", () => {
    const compactor = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 2,
      targetUtilization: 0.5,
    });
    expect(compactor.compact(longTurn(10), new Map()).result.toolResultsRedacted).toBe(8);
  });

  it.each([
    [{ targetUtilization: 0 }],
    [{ targetUtilization: 1.5 }],
    [{ targetUtilization: 0.8 }],
    [{ threshold: 0.6, targetUtilization: 0.7 }],
  ])("refuses %j naming targetUtilization", (config) => {
    const attempt = () => new ThresholdCompactor(config as Partial<CompactionConfig>);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow("targetUtilization");
  });
});

describe("clearAtLeast (minimum gain)", () => {
  it("skips a rewrite that would free fewer tokens: the input comes back unchanged, counting nothing", () => {
    const builder = new ConversationBuilder();
    builder.user("one").toolCall({ name: "t", result: "small result ".repeat(20) });
    builder.user("two").user("three").user("four");
    const conversation = builder.build();
    const compactor = new ThresholdCompactor({ toolCompaction: "redact", clearAtLeast: 1000 });
    const { conversation: out, result } = compactor.compact(conversation, new Map());
    expect(out).toEqual(conversation);
    for (const [index, message] of out.entries()) expect(message).toBe(conversation[index]);
    expect(result).toMatchObject({
      toolResultsRedacted: 0,
      toolResultsSummarized: 0,
      turnsCompacted: 0,
    });
    // A manual compaction was asked for: it goes ahead.
    const manual = compactor.compact(conversation, new Map(), { trigger: "manual" });
    expect(manual.result.toolResultsRedacted).toBe(1);
  });

  it("lets a rewrite through once it frees enough", () => {
    const compactor = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 2,
      clearAtLeast: 1000,
    });
    expect(compactor.compact(longTurn(3), new Map()).result.toolResultsRedacted).toBe(0);
    expect(compactor.compact(longTurn(20), new Map()).result.toolResultsRedacted).toBe(18);
  });

  it.each([-1, 0.5, "100"])("refuses clearAtLeast %j naming the field", (value) => {
    const attempt = () => new ThresholdCompactor({ clearAtLeast: value as number });
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow("clearAtLeast");
  });
});

describe("excludeTools and clearToolInputs", () => {
  it("never compacts the results or inputs of excluded tools", () => {
    const conversation = longTurn(10, { name: (index) => (index % 2 === 0 ? "memory" : "read") });
    const { conversation: out, result } = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 1,
      excludeTools: ["memory"],
      clearToolInputs: true,
    }).compact(conversation, new Map());
    expect(result.toolResultsRedacted).toBe(5);
    const names = uses(out).map((use) => use.name);
    results(out).forEach((block, index) => {
      const kept = names[index] === "memory";
      expect(block.content === REDACTION_NOTICE).toBe(!kept);
    });
    for (const use of uses(out)) expect(isClearedToolInput(use.input)).toBe(use.name !== "memory");
    expectValid(out);
  });

  it("clears the inputs of compacted tool uses to a small valid JSON object, idempotently", () => {
    const conversation = longTurn(6);
    const compactor = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 2,
      clearToolInputs: true,
    });
    const once = compactor.compact(conversation, new Map());
    expect(once.result).toMatchObject({ toolResultsRedacted: 4, toolInputsCleared: 4 });
    const inputs = uses(once.conversation).map((use) => use.input);
    for (const input of inputs.slice(0, 4)) {
      expect(Object.keys(input)).toEqual([CLEARED_INPUT_KEY]);
      expect(JSON.parse(JSON.stringify(input))).toEqual(input);
      expect(String(input[CLEARED_INPUT_KEY])).toMatch(/cleared.*characters; keys: path, body/);
    }
    expect(inputs.slice(4)).toEqual(
      uses(conversation)
        .slice(4)
        .map((use) => use.input),
    );
    const twice = compactor.compact(once.conversation, new Map());
    expect(twice.conversation).toEqual(once.conversation);
    expect(twice.result.toolInputsCleared ?? 0).toBe(0);
    expectValid(once.conversation);
  });

  it("clears only the named tools' inputs, and never an input it would not shrink", () => {
    const builder = new ConversationBuilder().user("go");
    const ok = "ok ".repeat(50);
    builder.toolCall({ name: "write", input: { content: "w".repeat(500) }, result: ok });
    builder.toolCall({ name: "read", input: { path: "r".repeat(500) }, result: ok });
    builder.toolCall({ name: "write", input: {}, result: ok });
    builder.toolCall({ name: "write", input: { content: "latest" }, result: ok });
    const { conversation: out, result } = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 1,
      clearToolInputs: ["write"],
    }).compact(builder.build(), new Map());
    expect(result.toolInputsCleared).toBe(1);
    expect(uses(out).map((use) => isClearedToolInput(use.input))).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it("clears a large input even when the result is already small (an edit's 'ok')", () => {
    const messages = new ConversationBuilder()
      .user("edit it")
      .toolCall({
        name: "edit_file",
        input: { path: "a.ts", patch: "x".repeat(10_000) },
        result: "ok",
        compactSummary: "edit_file a.ts: applied",
      })
      .assistant("done")
      .user("next")
      .assistant("a")
      .user("next")
      .assistant("b")
      .user("next")
      .assistant("c")
      .build();
    const { conversation, result } = new ThresholdCompactor({
      clearToolInputs: ["edit_file"],
    }).compact(messages, new Map());
    expect(result.toolInputsCleared).toBe(1);
    expect(result.toolResultsSummarized).toBe(0);
    expect(isClearedToolInput(uses(conversation)[0]!.input)).toBe(true);
    expect(results(conversation)[0]!.content).toBe("ok");
  });

  it("describes what was cleared", () => {
    const input = { path: "/a", content: "x".repeat(100) };
    expect(clearedToolInput(input)).toEqual({
      [CLEARED_INPUT_KEY]: `Tool input cleared for context management (${JSON.stringify(input).length} characters; keys: path, content)`,
    });
    expect(isClearedToolInput({ [CLEARED_INPUT_KEY]: "something else" })).toBe(false);
  });

  it.each([
    [{ excludeTools: "memory" }, "excludeTools"],
    [{ excludeTools: [""] }, "excludeTools"],
    [{ clearToolInputs: "all" }, "clearToolInputs"],
    [{ clearToolInputs: [3] }, "clearToolInputs"],
    [{ toolCompaction: "drop" }, "toolCompaction"],
  ])("refuses %j naming %s", (config, field) => {
    const attempt = () => new ThresholdCompactor(config as never);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(field);
  });
});

describe("summarize_or_redact", () => {
  it("uses the summary where there is one and the notice otherwise", () => {
    const builder = new ConversationBuilder().user("go");
    builder.toolCall({ name: "a", result: "long a ".repeat(50), compactSummary: "a: 50 lines" });
    builder.toolCall({ name: "b", result: "long b ".repeat(50) });
    builder.toolCall({ name: "c", result: "latest" });
    const { conversation: out, result } = new ThresholdCompactor({
      toolCompaction: "summarize_or_redact",
      keepRecentToolUses: 1,
    }).compact(builder.build(), new Map());
    expect(result).toMatchObject({ toolResultsSummarized: 1, toolResultsRedacted: 1 });
    expect(results(out).map((block) => block.content)).toEqual([
      "a: 50 lines",
      REDACTION_NOTICE,
      "latest",
    ]);
  });
});

describe("paths a masked result mentions", () => {
  function masked(toolCompaction: CompactionConfig["toolCompaction"], keepPathMentions = true) {
    const builder = new ConversationBuilder().user("go");
    builder.toolCall({
      id: "g",
      name: "grep",
      result: `src/auth/login.ts:3: token ${"filler ".repeat(100)}\nsrc/auth/session.ts:9: token`,
      compactSummary: "grep token: 2 hits in src/auth/login.ts",
    });
    builder.toolCall({ id: "b", name: "bash", result: "no paths here ".repeat(50) });
    builder.toolCall({ id: "c", name: "c", result: "latest" });
    const compactor = new ThresholdCompactor({
      toolCompaction,
      keepRecentToolUses: 1,
      keepPathMentions,
    });
    return { compactor, output: compactor.compact(builder.build(), new Map()) };
  }

  it("keeps them after the summary or the notice, naming each once; nothing added without one", () => {
    expect(
      results(masked("summarize_or_redact").output.conversation).map((b) => b.content),
    ).toEqual([
      "grep token: 2 hits in src/auth/login.ts (mentions: src/auth/session.ts)",
      REDACTION_NOTICE,
      "latest",
    ]);
    const redacted = masked("redact").output;
    expect(results(redacted.conversation)[0]?.content).toBe(
      `${REDACTION_NOTICE} (mentions: src/auth/login.ts, src/auth/session.ts)`,
    );
    expect(redacted.result).toMatchObject({ toolResultsRedacted: 2, toolResultsSummarized: 0 });
    // Off (the class's default): the placeholder alone.
    expect(results(masked("redact", false).output.conversation)[0]?.content).toBe(REDACTION_NOTICE);
  });

  it("takes a placeholder with mentions as done when mentions are off", () => {
    const { output } = masked("redact");
    const plain = new ThresholdCompactor({ toolCompaction: "redact", keepRecentToolUses: 1 });
    const again = plain.compact(output.conversation, new Map());
    expect(again.conversation).toEqual(output.conversation);
  });

  it("never masks a placeholder again, with or without a recall mark after it", () => {
    for (const mode of ["redact", "summarize_or_redact"] as const) {
      const { compactor, output } = masked(mode);
      const again = compactor.compact(output.conversation, new Map());
      expect(again.conversation).toEqual(output.conversation);
      expect(again.result).toMatchObject({ toolResultsRedacted: 0, toolResultsSummarized: 0 });
      const marked = output.conversation.map((message) => ({
        ...message,
        content: message.content.map((block) =>
          block.type === "tool_result" && block.toolUseId === "g"
            ? { ...block, content: `${block.content as string} [recall r1-abcd]` }
            : block,
        ),
      })) as Message[];
      expect(compactor.compact(marked, new Map()).result).toMatchObject({
        toolResultsRedacted: 0,
        toolResultsSummarized: 0,
      });
    }
  });
});

describe("what a masked result keeps", () => {
  it("keeps the fields of a result and of its message, a caller's own too", () => {
    const conversation = longTurn(12).map((message) => {
      if (!message.content.some((block) => block.type === "tool_result")) return message;
      const content = message.content.map((block) =>
        block.type === "tool_result"
          ? { ...block, compactSummary: "read", extra: { p: 1 }, cache_control: { type: "x" } }
          : block,
      );
      return { ...message, content, metadata: { tag: message.id } } as unknown as Message;
    });
    const { conversation: masked } = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 2,
    }).compact(conversation, new Map());
    const redacted = results(masked).filter((block) => block.content === REDACTION_NOTICE);
    expect(redacted.length).toBeGreaterThan(0);
    for (const block of redacted) {
      expect(block).toMatchObject({ compactSummary: "read", extra: { p: 1 } });
      expect((block as unknown as { cache_control: unknown }).cache_control).toEqual({ type: "x" });
    }
    for (const message of masked) {
      if (message.content.some((block) => block.type === "tool_result"))
        expect((message as unknown as { metadata: unknown }).metadata).toEqual({ tag: message.id });
    }
    // Without fields of a caller's own, the same fields in the same order as a spread made.
    const plain = longTurn(12);
    const [first] = results(
      new ThresholdCompactor({ toolCompaction: "redact", keepRecentToolUses: 2 }).compact(
        plain,
        new Map(),
      ).conversation,
    ).filter((block) => block.content === REDACTION_NOTICE);
    expect(Object.keys(first!)).toEqual(["type", "toolUseId", "content", "isError"]);
  });
});
