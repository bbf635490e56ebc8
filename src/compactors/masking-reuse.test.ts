import { describe, expect, it } from "vitest";
import { unseenCopy } from "../../test/support/unseen-copy.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { ConversationBuilder } from "../testing/builders.js";
import { recordedMasking } from "./masking-reuse.js";
import { ThresholdCompactor } from "./threshold-compactor.js";
import { maskToolResults, REDACTION_NOTICE } from "./tool-masking.js";

/** `turns` turns of a request, two tool calls (one result each) and an answer. */
function conversation(turns: number): Message[] {
  const builder = new ConversationBuilder({ idPrefix: "reuse" });
  for (let turn = 0; turn < turns; turn += 1) {
    builder.user(`request ${turn}`);
    for (let call = 0; call < 2; call += 1)
      builder.toolCall({
        name: "read",
        input: { path: `f${turn}-${call}` },
        result: `contents of f${turn}-${call} `.repeat(40),
        compactSummary: `f${turn}-${call}: read`,
      });
    builder.assistant(`done ${turn}`);
  }
  return builder.build();
}

describe("masking a conversation compacted before reuses what it made then", () => {
  const redact = new ThresholdCompactor({ toolCompaction: "redact" });

  /** The messages the last pass on `messages` recorded (none: a first pass keeps no record). */
  function recorded(messages: readonly Message[]): number {
    return recordedMasking(messages)?.made.filter((made) => made !== undefined).length ?? 0;
  }

  /** Two passes: the second keeps a record, which the next pass may reuse. */
  function compactTwice(messages: readonly Message[]): void {
    redact.compact(messages, new Map());
    redact.compact(messages, new Map());
  }

  it("gives the same output, with the masked messages of the pass before", () => {
    const messages = conversation(8);
    // The first pass keeps no record (a conversation seen once never needs one); the second does.
    const once = redact.compact(messages, new Map());
    expect(recorded(messages)).toBe(0);
    const first = redact.compact(messages, new Map());
    expect(recorded(messages)).toBeGreaterThan(0);
    const again = redact.compact(messages, new Map());
    expect(first.conversation).toEqual(once.conversation);
    expect(again.conversation).toEqual(first.conversation);
    expect(again.result).toEqual(first.result);
    expect(again.conversation).not.toBe(first.conversation);
    const masked = first.conversation.filter((message, index) => message !== messages[index]);
    expect(masked.length).toBeGreaterThan(0);
    for (const message of masked) {
      expect(again.conversation).toContain(message);
      expect(once.conversation).not.toContain(message);
    }
  });

  it("grown, in the same array or a new one: what changed is made anew, the output as a fresh pass's", () => {
    const messages = conversation(6);
    compactTwice(messages);
    const grown = [...messages, ...conversation(9).slice(messages.length)];
    const output = redact.compact(grown, new Map());
    expect(output.conversation).toEqual(redact.compact(unseenCopy(grown), new Map()).conversation);
    messages.push(...conversation(10).slice(messages.length));
    expect(redact.compact(messages, new Map()).conversation).toEqual(
      redact.compact(unseenCopy(messages), new Map()).conversation,
    );
  });

  it("another replacement (a summary, another compactor's notice) is made anew", () => {
    const messages = conversation(6);
    compactTwice(messages);
    const summarize = new ThresholdCompactor({ toolCompaction: "summarize" });
    const summarized = summarize.compact(messages, new Map()).conversation;
    expect(summarized).toEqual(summarize.compact(unseenCopy(messages), new Map()).conversation);
    const texts = summarized.flatMap((message) =>
      message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
    );
    expect(texts).not.toContain(REDACTION_NOTICE);
    const summaries = new Map([["toolu_1", "the first read"]]);
    expect(redact.compact(messages, summaries).conversation).toEqual(
      redact.compact(unseenCopy(messages), summaries).conversation,
    );
  });

  it("a caller changing the array it was handed, or the conversation's messages replaced, changes nothing", () => {
    const messages = conversation(6);
    redact.compact(messages, new Map());
    const first = redact.compact(messages, new Map()).conversation;
    expect(recorded(messages)).toBeGreaterThan(0);
    const expected = structuredClone(first);
    first.fill(first[0]!);
    expect(redact.compact(messages, new Map()).conversation).toEqual(expected);
    const replaced = messages.findIndex(
      (message, index) => index > 0 && message.content[0]?.type === "tool_result",
    );
    messages[replaced] = { ...messages[replaced]!, id: "replaced" };
    expect(redact.compact(messages, new Map()).conversation).toEqual(
      redact.compact(unseenCopy(messages), new Map()).conversation,
    );
  });

  it("keeps nothing of a frozen array (a session's history, which the output replaces)", () => {
    const frozen = Object.freeze(conversation(6));
    compactTwice(frozen);
    expect(recordedMasking(frozen)).toBeUndefined();
    const plain = conversation(6);
    compactTwice(plain);
    expect(recorded(plain)).toBeGreaterThan(0);
  });
});

describe("a message masked before whose turn comes back", () => {
  const redact = new ThresholdCompactor({ toolCompaction: "redact", keepRecentTurns: 1 });

  /** Six turns of one tool call each, masked twice (a record kept), then a request answered in `turnId`. */
  function returning(turnId: { owner: string; number: number }): Message[] {
    const builder = new ConversationBuilder({ idPrefix: "back" });
    for (let turn = 0; turn < 6; turn += 1)
      builder
        .user(`request ${turn}`)
        .toolCall({ name: "read", result: `contents ${turn} `.repeat(40) })
        .assistant(`done ${turn}`);
    const messages = builder.build();
    redact.compact(messages, new Map());
    redact.compact(messages, new Map());
    expect(recordedMasking(messages)?.made.filter(Boolean).length).toBe(5);
    builder.user("and once more").inTurn(turnId).assistant("again");
    messages.push(...builder.build().slice(messages.length));
    return messages;
  }

  it("is recent again when its turn is the newest (an irregular, reused turn id)", () => {
    const messages = returning({ owner: "u", number: 2 });
    const output = redact.compact(messages, new Map()).conversation;
    expect(output).toEqual(redact.compact(unseenCopy(messages), new Map()).conversation);
    // Turn 2's result (message 7) is whole again; the other old results stay masked.
    expect(output[6]).toBe(messages[6]);
    expect(output[2]).not.toBe(messages[2]);
  });

  it("stays masked when only the number comes back, under another owner", () => {
    const messages = returning({ owner: "x", number: 2 });
    const output = redact.compact(messages, new Map()).conversation;
    expect(output).toEqual(redact.compact(unseenCopy(messages), new Map()).conversation);
    expect(output[6]).not.toBe(messages[6]);
  });
});

describe("a record made under one setting, read under another", () => {
  it("a target stops the reuse where it stops a fresh pass", () => {
    const messages = conversation(8);
    const redact = new ThresholdCompactor({ toolCompaction: "redact" });
    redact.compact(messages, new Map());
    redact.compact(messages, new Map());
    const tokens = estimateTokens(messages);
    const targeted = new ThresholdCompactor({ toolCompaction: "redact", targetUtilization: 0.7 });
    const context = { contextLimit: tokens, contextUsed: tokens };
    const output = targeted.compact(messages, new Map(), context);
    const fresh = targeted.compact(unseenCopy(messages), new Map(), context);
    expect(output).toEqual(fresh);
    // Some old results masked, not all: the target was met on the way.
    expect(output.result.toolResultsRedacted).toBeGreaterThan(0);
    expect(output.result.toolResultsRedacted).toBeLessThan(
      redact.compact(messages, new Map()).result.toolResultsRedacted,
    );
  });
});

describe("what the record holds and when it is read", () => {
  it.each([
    ["the newest three turns, all recent", 12],
    ["the newest four turns, one old", 18],
  ])("keeps no message a conversation cut back to %s no longer holds", (_, kept) => {
    const messages = conversation(12);
    const redact = new ThresholdCompactor({ toolCompaction: "redact" });
    redact.compact(messages, new Map());
    redact.compact(messages, new Map());
    // The loop keeps the first message and the newest turns: what was noted of the rest goes.
    messages.splice(1, messages.length - 1 - kept);
    redact.compact(messages, new Map());
    const record = recordedMasking(messages)!;
    expect(record.sources.length).toBeLessThanOrEqual(messages.length);
    expect(record.made.length).toBeLessThanOrEqual(messages.length);
    record.sources.forEach((source, index) => {
      if (source !== undefined) expect(source).toBe(messages[index]);
    });
  });

  it("a summary with mentions is judged a placeholder again by its own base", () => {
    const builder = new ConversationBuilder({ idPrefix: "base" });
    builder
      .user("go")
      .toolCall({
        id: "t1",
        name: "grep",
        result: `S (mentions: src/b.ts) see src/a.ts ${"x".repeat(200)}`,
      })
      .assistant("ok")
      .user("next")
      .assistant("done");
    const messages = builder.build();
    const compactor = new ThresholdCompactor({
      toolCompaction: "summarize",
      keepRecentTurns: 1,
      keepPathMentions: true,
    });
    // Both summaries give the same placeholder: the mentions leave out paths a summary names.
    const naming = new Map([["t1", "S (mentions: src/b.ts, src/a.ts)"]]);
    compactor.compact(messages, naming);
    compactor.compact(messages, naming);
    const plain = new Map([["t1", "S"]]);
    expect(compactor.compact(messages, plain)).toEqual(
      compactor.compact(unseenCopy(messages), plain),
    );
  });

  it("never reuses a masked message that has become the newest results (masking alone may keep no turn)", () => {
    const builder = new ConversationBuilder({ idPrefix: "newest" });
    builder.user("go").toolCall({ name: "read", result: "x".repeat(400) });
    builder
      .user("next")
      .toolCall({ name: "read", result: "y".repeat(400) })
      .assistant("done");
    builder.user("more").assistant("ok");
    const messages = builder.build();
    const settings = {
      keepRecentTurns: 0,
      toolCompaction: "redact",
      excludeTools: [],
      clearToolInputs: false,
      clearAtLeast: 0,
    } as const;
    maskToolResults(messages, new Map(), settings);
    maskToolResults(messages, new Map(), settings);
    // Message 6 (the second result) is now the newest results of the last turn.
    messages.length = 6;
    expect(maskToolResults(messages, new Map(), settings)).toEqual(
      maskToolResults(unseenCopy(messages), new Map(), settings),
    );
  });
});
