import { describe, expect, it } from "vitest";
import {
  createCompactor,
  DEFAULT_THRESHOLD_COMPACTOR_OPTIONS,
  extractTurnIds,
  type Message,
  REDACTION_NOTICE,
  ThresholdCompactor,
  ValidationError,
} from "../index.js";
import { ConversationBuilder } from "../testing/index.js";

/** Five turns, each: user request, one tool call with a compact summary, assistant answer. */
function fiveTurns(): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= 5; turn += 1) {
    builder
      .user(`request ${turn}`)
      .toolCall({
        name: "read_file",
        input: { path: `/src/file-${turn}.ts` },
        result: `contents of file ${turn} `.repeat(50),
        compactSummary: `file ${turn}: 50 lines`,
      })
      .assistant(`answer ${turn}`);
  }
  return builder.build();
}

function toolResults(messages: readonly Message[]) {
  return messages.flatMap((message) =>
    message.content.flatMap((block) =>
      block.type === "tool_result" ? [{ turn: message.turnId.number, block }] : [],
    ),
  );
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe("ThresholdCompactor", () => {
  it("has the seed's defaults", () => {
    expect(new ThresholdCompactor().config).toMatchObject({
      threshold: 0.75,
      keepRecentTurns: 3,
      toolCompaction: "summarize",
    });
    expect(DEFAULT_THRESHOLD_COMPACTOR_OPTIONS.threshold).toBe(0.75);
  });

  it("triggers only strictly above the threshold", () => {
    const compactor = new ThresholdCompactor();
    expect(compactor.shouldCompact(75, 100)).toBe(false);
    expect(compactor.shouldCompact(76, 100)).toBe(true);
    expect(compactor.shouldCompact(750_001, 1_000_000)).toBe(true);
    expect(compactor.shouldCompact(0, 100)).toBe(false);
    expect(compactor.shouldCompact(100, 0)).toBe(false);
    expect(new ThresholdCompactor({ threshold: 1 }).shouldCompact(100, 100)).toBe(false);
  });

  it("with 5 turns and keepRecentTurns 3, compacts the tool results of turns 1 and 2 only", () => {
    const conversation = fiveTurns();
    const { conversation: compacted, result } = new ThresholdCompactor().compact(
      conversation,
      new Map(),
    );
    expect(result).toMatchObject({
      toolResultsSummarized: 2,
      toolResultsRedacted: 0,
      turnsCompacted: 0,
    });
    const after = toolResults(compacted);
    expect(after.filter(({ turn }) => turn <= 2).map(({ block }) => block.content)).toEqual([
      "file 1: 50 lines",
      "file 2: 50 lines",
    ]);
    const before = toolResults(conversation);
    for (const turn of [3, 4, 5]) {
      expect(after.find((entry) => entry.turn === turn)?.block).toBe(
        before.find((entry) => entry.turn === turn)?.block,
      );
    }
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore!);
  });

  it("prefers the summary map over the block's own compactSummary, and keeps id and isError", () => {
    const conversation = new ConversationBuilder()
      .user("one")
      .toolCall({ name: "run", result: "boom ".repeat(100), isError: true, compactSummary: "own" })
      .user("two")
      .assistant("ok")
      .build();
    const { conversation: compacted } = new ThresholdCompactor({ keepRecentTurns: 1 }).compact(
      conversation,
      new Map([["toolu_1", "from the map"]]),
    );
    const [entry] = toolResults(compacted);
    expect(entry?.block).toMatchObject({
      toolUseId: "toolu_1",
      isError: true,
      content: "from the map",
    });
  });

  it("replaces a short result by a summary of the same size, but never by a longer one", () => {
    const conversation = new ConversationBuilder()
      .user("one")
      .toolCall({ name: "run", result: "output 1", compactSummary: "sum 1" })
      .toolCall({ name: "run", result: "ok", compactSummary: "the command ran and printed ok" })
      .user("two")
      .build();
    const { conversation: compacted, result } = new ThresholdCompactor({
      keepRecentTurns: 1,
    }).compact(conversation, new Map());
    expect(result.toolResultsSummarized).toBe(1);
    expect(toolResults(compacted).map(({ block }) => block.content)).toEqual(["sum 1", "ok"]);
  });

  it("leaves a tool result without any summary alone in summarize mode", () => {
    const conversation = new ConversationBuilder()
      .user("one")
      .toolCall({ name: "run", result: "no summary here" })
      .user("two")
      .build();
    const { conversation: compacted, result } = new ThresholdCompactor({
      keepRecentTurns: 1,
    }).compact(conversation, new Map());
    expect(result.toolResultsSummarized).toBe(0);
    expect(compacted).toEqual(conversation);
  });

  it("redacts old tool results with the notice in redact mode", () => {
    const { conversation, result } = new ThresholdCompactor({ toolCompaction: "redact" }).compact(
      fiveTurns(),
      new Map(),
    );
    expect(result).toMatchObject({ toolResultsRedacted: 2, toolResultsSummarized: 0 });
    expect(
      toolResults(conversation)
        .filter(({ turn }) => turn <= 2)
        .map(({ block }) => block.content),
    ).toEqual([REDACTION_NOTICE, REDACTION_NOTICE]);
  });

  it("is idempotent: a second pass changes nothing and counts nothing", () => {
    for (const toolCompaction of ["summarize", "redact"] as const) {
      const compactor = new ThresholdCompactor({ toolCompaction });
      const once = compactor.compact(fiveTurns(), new Map());
      const twice = compactor.compact(once.conversation, new Map());
      expect(twice.result).toMatchObject({
        toolResultsSummarized: 0,
        toolResultsRedacted: 0,
        turnsCompacted: 0,
      });
      expect(twice.conversation).toEqual(once.conversation);
    }
  });

  it("never mutates the input array or its messages, and shares unchanged messages", () => {
    const conversation = deepFreeze(fiveTurns());
    const copy = structuredClone(conversation);
    const { conversation: compacted } = new ThresholdCompactor({
      toolCompaction: "redact",
    }).compact(conversation, new Map());
    expect(conversation).toEqual(copy);
    expect(compacted).not.toBe(conversation);
    expect(compacted.at(-1)).toBe(conversation.at(-1));
  });

  it("does nothing when there are no more turns than keepRecentTurns", () => {
    const conversation = fiveTurns();
    const { conversation: compacted, result } = new ThresholdCompactor({
      keepRecentTurns: 5,
    }).compact(conversation, new Map());
    expect(result).toMatchObject({ toolResultsSummarized: 0, turnsCompacted: 0 });
    expect(compacted).toEqual(conversation);
    expect(extractTurnIds(compacted)).toHaveLength(5);
  });

  it.each([
    [{ threshold: 1.5 }, "threshold"],
    [{ threshold: 0 }, "threshold"],
    [{ threshold: Number.NaN }, "threshold"],
    [{ keepRecentTurns: 0 }, "keepRecentTurns"],
    [{ keepRecentTurns: 1.5 }, "keepRecentTurns"],
    [{ toolCompaction: "delete" }, "toolCompaction"],
    [{ tresholdTypo: 0.5 }, "tresholdTypo"],
    [{ dropOldest: "yes" }, "dropOldest"],
    [{ dropOldest: true }, "dropOldest"],
    [{ clock: 5 }, "clock"],
  ])("refuses %j with a ValidationError naming %s", (config, field) => {
    const attempt = () => new ThresholdCompactor(config as never);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(field);
    try {
      attempt();
    } catch (error) {
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as ValidationError).issues.length).toBeGreaterThan(0);
    }
  });

  it("is what createCompactor builds by default", () => {
    expect(createCompactor({ type: "threshold" })).toBeInstanceOf(ThresholdCompactor);
    expect(
      (createCompactor({ type: "threshold", config: { keepRecentTurns: 1 } }) as ThresholdCompactor)
        .config.keepRecentTurns,
    ).toBe(1);
    expect(() => createCompactor({ type: "llm" })).toThrow(ValidationError);
    expect(() => createCompactor({ type: "magic" } as never)).toThrow(/type/);
  });
});
