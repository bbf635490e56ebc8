import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { ConversationBuilder } from "../testing/builders.js";
import { distinctSent } from "./distinct-sent-ids.js";

/** Two turns of a call each (`call_1`, `call_2`), ids by position as a one-call helper names them. */
function converted(): Message[] {
  return new ConversationBuilder()
    .user("a")
    .toolCall({ name: "read", input: { p: 1 }, result: "one", id: "call_1" })
    .user("b")
    .toolCall({ name: "read", input: { p: 2 }, result: "two", id: "call_2" })
    .build()
    .map((message, index) => ({ ...message, id: String(index) }));
}

const callIds = (messages: readonly Message[]) =>
  messages.flatMap((message) =>
    message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])),
  );

describe("distinctSent", () => {
  it("hands back what was sent, unwalked, when only the conversion's messages hold calls", () => {
    const from = converted();
    const sent = from.slice();
    // A masked result: changed where it stood.
    sent[2] = { ...sent[2]!, content: [...sent[2]!.content] };
    expect(distinctSent(from, sent, false)).toBe(sent);
    // Messages removed before: the rest found by their positions.
    expect(distinctSent(from, sent.slice(3), false)).toEqual(sent.slice(3));
  });

  it("renames a call a message the conversion did not make repeats", () => {
    const from = converted();
    // A message of its own repeating the first call (a custom compactor's).
    const sent = [...from, { ...from[1]!, id: "made" }];
    expect(callIds(distinctSent(from, sent, false))).toEqual(["call_1", "call_2", "call_1_2"]);
  });

  it("renames a call a message changed where it stood now repeats", () => {
    const from = converted();
    const sent = from.slice();
    const second = sent[4]!;
    sent[4] = {
      ...second,
      content: second.content.map((block) =>
        block.type === "tool_use" ? { ...block, id: "call_1" } : block,
      ),
    };
    expect(callIds(distinctSent(from, sent, false))).toEqual(["call_1", "call_1_2"]);
  });

  it("renames when the conversion itself had an id twice (mends), and only then", () => {
    const from = new ConversationBuilder()
      .user("a")
      .toolCall({ name: "read", input: { p: 1 }, result: "one", id: "call_0" })
      .user("b")
      .toolCall({ name: "read", input: { p: 2 }, result: "two", id: "call_0" })
      .build()
      .map((message, index) => ({ ...message, id: String(index) }));
    expect(callIds(distinctSent(from, from, true))).toEqual(["call_0", "call_0_2"]);
    // The reading tells of it: unwalked, the conversion's own messages are sent as they are.
    expect(distinctSent(from, from, false)).toBe(from);
  });
});
