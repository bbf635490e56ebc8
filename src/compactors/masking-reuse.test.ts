import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { ConversationBuilder } from "../testing/builders.js";
import { pastMasking } from "./masking-reuse.js";
import { ThresholdCompactor } from "./threshold-compactor.js";
import { REDACTION_NOTICE } from "./tool-masking.js";

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

/** The same messages as new objects: what a compaction never saw. */
function copied(messages: readonly Message[]): Message[] {
  return messages.map((message) => ({
    ...message,
    content: message.content.map((block) => ({ ...block })),
  })) as Message[];
}

describe("masking a conversation compacted before reuses what it made then", () => {
  const redact = new ThresholdCompactor({ toolCompaction: "redact" });

  /** The messages the last pass on `messages` recorded (none: a first pass keeps no record). */
  function recorded(messages: readonly Message[]): number {
    return pastMasking(messages)?.record.made.filter((made) => made !== undefined).length ?? 0;
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
    expect(output.conversation).toEqual(redact.compact(copied(grown), new Map()).conversation);
    messages.push(...conversation(10).slice(messages.length));
    expect(redact.compact(messages, new Map()).conversation).toEqual(
      redact.compact(copied(messages), new Map()).conversation,
    );
  });

  it("another replacement (a summary, another compactor's notice) is made anew", () => {
    const messages = conversation(6);
    compactTwice(messages);
    const summarize = new ThresholdCompactor({ toolCompaction: "summarize" });
    const summarized = summarize.compact(messages, new Map()).conversation;
    expect(summarized).toEqual(summarize.compact(copied(messages), new Map()).conversation);
    const texts = summarized.flatMap((message) =>
      message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
    );
    expect(texts).not.toContain(REDACTION_NOTICE);
    const summaries = new Map([["toolu_1", "the first read"]]);
    expect(redact.compact(messages, summaries).conversation).toEqual(
      redact.compact(copied(messages), summaries).conversation,
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
      redact.compact(copied(messages), new Map()).conversation,
    );
  });

  it("keeps nothing of a frozen array (a session's history, which the output replaces)", () => {
    const frozen = Object.freeze(conversation(6));
    compactTwice(frozen);
    expect(pastMasking(frozen)).toBeUndefined();
    const plain = conversation(6);
    compactTwice(plain);
    expect(recorded(plain)).toBeGreaterThan(0);
  });
});
