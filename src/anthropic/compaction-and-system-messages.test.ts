import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCompactionBlock, isSystemMessage, safeCuts } from "../core/conversation-structure.js";
import { ValidationError } from "../core/errors.js";
import { SYSTEM_MESSAGE_BLOCK_TYPE } from "../core/message.js";
import { validateConversation } from "../core/validate-conversation.js";
import { toAnthropicMessages } from "./request.js";
import { type FromAnthropicOptions, fromAnthropicMessages } from "./turns.js";

/**
 * The shapes of Anthropic's server-side compaction and mid-conversation system messages: a
 * conversation that starts with the API's `compaction` block and holds `role: "system"`
 * messages round-trips through the converters unchanged and in place, and validates.
 */

const FIXED = new Date("2026-01-01T00:00:00Z");

function fixedOptions(): FromAnthropicOptions {
  let count = 0;
  return { sessionId: "s1", clock: () => FIXED, generateId: () => `m-${++count}` };
}

const block = {
  type: "compaction",
  content: "Summary: the user wants the failing test in src/a.ts fixed.",
  signature: "EuYBCkQY-sig",
};

/** The docs' shape: the block as its own assistant message, then the kept turns. */
const params: MessageParam[] = [
  { role: "assistant", content: [block] } as unknown as MessageParam,
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Read the test.", signature: "sig-1" },
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "src/a.ts" } },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a = 1" }] },
  {
    role: "system",
    clear_at: "next_user_message",
    content: "The shell exited with status 137.",
  } as unknown as MessageParam,
  { role: "assistant", content: "Fixed." },
  { role: "user", content: "Thanks. Now the docs." },
  {
    role: "system",
    content: [{ type: "text", text: "Keep answers short.", cache_control: { type: "ephemeral" } }],
  } as unknown as MessageParam,
  { role: "system", output_config: { effort: "low" } } as unknown as MessageParam,
];

describe("a conversation led by a compaction block, with system messages", () => {
  it("round-trips through the converters unchanged and in place", () => {
    const messages = fromAnthropicMessages(params, fixedOptions());
    expect(toAnthropicMessages(messages)).toEqual(params);
    // Each system message is a message of its own, where the caller put it.
    expect(messages.map((message) => isSystemMessage(message))).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
      true,
      true,
    ]);
    expect(messages[3]!.content).toEqual([
      { type: "opaque", block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: params[3] } },
    ]);
    // The block is carried as it came, and leads the conversation as the summary (turn u0).
    expect(isCompactionBlock(messages[0]!.content[0])).toBe(true);
    expect(messages[0]!.content[0]).toEqual({ type: "opaque", block });
    expect(messages.map((message) => `${message.turnId.owner}${message.turnId.number}`)).toEqual([
      "u0",
      "u1",
      "u1",
      "u1",
      "u1",
      "u2",
      "u2",
      "u2",
    ]);
    // ours -> back -> ours is the same.
    expect(fromAnthropicMessages(toAnthropicMessages(messages), fixedOptions())).toEqual(messages);
  });

  it("validates where the API accepts it", () => {
    expect(validateConversation(fromAnthropicMessages(params))).toEqual([]);
    // The block as the first block of the first (user) message is accepted too.
    const merged = fromAnthropicMessages([
      { role: "user", content: [block, { type: "text", text: "Next question." }] },
    ] as unknown as MessageParam[]);
    expect(validateConversation(merged)).toEqual([]);
    expect(toAnthropicMessages(merged)[0]!.content).toEqual([
      block,
      { type: "text", text: "Next question." },
    ]);
  });

  it("never merges the block's message or a system message with a neighbour of the same role", () => {
    const [compaction, reply] = fromAnthropicMessages([
      { role: "assistant", content: [block] },
      { role: "assistant", content: "Continuing." },
    ] as unknown as MessageParam[]);
    expect(toAnthropicMessages([compaction!, reply!])).toHaveLength(2);
    const conversation = fromAnthropicMessages([
      { role: "user", content: "one" },
      { role: "system", content: "Be brief." },
      { role: "assistant", content: "ok" },
    ] as unknown as MessageParam[]);
    expect(toAnthropicMessages(conversation).map((message) => message.role)).toEqual([
      "user",
      "system",
      "assistant",
    ]);
  });

  it("refuses a system message with content in the first place, and a malformed one, naming the path", () => {
    const first = () => fromAnthropicMessages([{ role: "system", content: "be nice" }] as never);
    expect(first).toThrow(ValidationError);
    expect(first).toThrow(/messages\[0\]\.role: .*first message/);
    expect(() =>
      fromAnthropicMessages([
        { role: "user", content: "a" },
        { role: "system", content: 3 },
      ] as never),
    ).toThrow(/messages\[1\]\.content/);
    expect(() =>
      fromAnthropicMessages([
        { role: "user", content: "a" },
        { role: "system", content: "x", clear_at: "later" },
      ] as never),
    ).toThrow(/messages\[1\]\.clear_at/);
    // One that only sets output_config may come first.
    const effort = fromAnthropicMessages([
      { role: "system", output_config: { effort: "high" } },
      { role: "user", content: "go" },
    ] as never);
    expect(effort.map((message) => message.turnId.number)).toEqual([1, 1]);
    expect(validateConversation(effort)).toEqual([]);
  });

  it("keeps a system message with what it follows: no safe cut right before it", () => {
    const messages = fromAnthropicMessages(params);
    const safe = safeCuts(messages);
    expect(safe[3]).toBe(false);
    expect(safe[6]).toBe(false);
    expect(safe[7]).toBe(false);
    expect(safe[4]).toBe(true);
  });
});

/** Random valid conversations: a leading block or not, and system messages after user turns. */
const conversations: fc.Arbitrary<MessageParam[]> = fc
  .record({
    lead: fc.boolean(),
    turns: fc.array(
      fc.record({
        text: fc.string({ minLength: 1, maxLength: 12 }).filter((text) => text.trim() !== ""),
        system: fc.option(
          fc.oneof(
            fc.record({ role: fc.constant("system"), content: fc.string({ minLength: 1 }) }),
            fc.record({
              role: fc.constant("system"),
              clear_at: fc.constantFrom("next_user_message", "never"),
              content: fc.array(
                fc.record({ type: fc.constant("text"), text: fc.string({ minLength: 1 }) }),
                { minLength: 1, maxLength: 2 },
              ),
            }),
          ),
          { nil: undefined },
        ),
        reply: fc
          .string({ minLength: 1, maxLength: 12 })
          .map((text) => text.trim())
          .filter((text) => text !== ""),
      }),
      { minLength: 1, maxLength: 5 },
    ),
  })
  .map(({ lead, turns }) => {
    const messages: unknown[] = lead ? [{ role: "assistant", content: [block] }] : [];
    for (const { text, system, reply } of turns) {
      messages.push({ role: "user", content: text });
      if (system !== undefined) messages.push(system);
      messages.push({ role: "assistant", content: [{ type: "text", text: reply }] });
    }
    return messages as MessageParam[];
  });

describe("round trip (property)", () => {
  it("keeps every compaction block and system message in place, and the result validates", () => {
    fc.assert(
      fc.property(conversations, (conversation) => {
        const messages = fromAnthropicMessages(conversation);
        expect(toAnthropicMessages(messages)).toEqual(conversation);
        expect(validateConversation(messages)).toEqual([]);
      }),
      { seed: 1111, numRuns: 200 },
    );
  });
});
