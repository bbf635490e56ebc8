import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../anthropic/request.js";
import { toolLoopThinkingProblem } from "../testing/anthropic-rules/thinking.js";
import { ConversationBuilder } from "../testing/builders.js";
import type { Message } from "./message.js";
import {
  CONTINUATION_NOTE,
  CONTINUATION_REQUEST,
  keepThinkingValid,
} from "./preserved-thinking.js";

const thinking = (text: string) => ({
  type: "thinking" as const,
  thinking: text,
  signature: `sig-${text}`,
});

/** Three tool exchanges, each reply led by a thinking block; the last one still open. */
function thinkingLoop(): Message[] {
  const builder = new ConversationBuilder().user("fix the bug");
  for (let call = 1; call <= 3; call += 1) {
    builder.assistant([
      thinking(`t${call}`),
      { type: "tool_use", id: `toolu_${call}`, name: "read", input: { call } },
    ]);
    builder.toolResults([
      { type: "tool_result", toolUseId: `toolu_${call}`, content: `r${call}`, isError: false },
    ]);
  }
  return builder.build();
}

const withoutThinking = (message: Message): Message =>
  ({
    ...message,
    content: message.content.filter((block) => block.type !== "thinking"),
  }) as Message;

const thinkingOf = (conversation: readonly Message[]) =>
  conversation.flatMap((message, index) =>
    message.content.flatMap((block) =>
      block.type === "thinking" ? [`${index}:${block.thinking}`] : [],
    ),
  );

describe("keepThinkingValid", () => {
  it("changes nothing when nothing changed", () => {
    const conversation = thinkingLoop();
    const { conversation: out, repair } = keepThinkingValid(conversation, [...conversation]);
    expect(out).toEqual(conversation);
    expect(out.every((message, index) => message === conversation[index])).toBe(true);
    expect(repair).toMatchObject({ thinkingBlocksDropped: 0, toolExchangeClosed: false });
  });

  it("removes every thinking block from the first changed message on, whole, and keeps those before", () => {
    const conversation = thinkingLoop();
    const edited = [...conversation];
    // Mask the second result (message 4): thinking in messages 1 and 3 came before it.
    edited[4] = {
      ...conversation[4]!,
      content: [
        { type: "tool_result", toolUseId: "toolu_2", content: "[cleared]", isError: false },
      ],
    } as Message;
    const { conversation: out, repair } = keepThinkingValid(
      conversation,
      edited,
      () => new Date(0),
    );
    expect(thinkingOf(out)).toEqual(["1:t1", "3:t2"]);
    expect(repair.firstChange).toBe(4);
    expect(repair.thinkingBlocksDropped).toBe(1);
    expect(repair.thinkingTokensDropped).toBeGreaterThan(0);
    // The open exchange's assistant message lost its thinking: a continuation closes it.
    expect(repair.toolExchangeClosed).toBe(true);
    expect(out.slice(-2).map((message) => [message.role, message.content])).toEqual([
      ["assistant", [{ type: "text", text: CONTINUATION_NOTE }]],
      ["user", [{ type: "text", text: CONTINUATION_REQUEST }]],
    ]);
    expect(out.slice(0, 4).every((message, index) => message === conversation[index])).toBe(true);
  });

  it("closes an exchange the user's words follow with the note alone, before them: the API merges them with the results (review 55b #1)", () => {
    const conversation = new ConversationBuilder()
      .user("fix the bug")
      .assistant([thinking("t1"), { type: "tool_use", id: "toolu_1", name: "read", input: {} }])
      .toolResults([{ type: "tool_result", toolUseId: "toolu_1", content: "r1", isError: false }])
      .user("Thanks")
      .build();
    const edited = [...conversation];
    edited[0] = { ...conversation[0]!, content: [{ type: "text", text: "[summary]" }] } as Message;
    const { conversation: out, repair } = keepThinkingValid(
      conversation,
      edited,
      () => new Date(0),
    );
    expect(repair.toolExchangeClosed).toBe(true);
    expect(out.map((message) => [message.role, message.content[0]?.type])).toEqual([
      ["user", "text"],
      ["assistant", "tool_use"],
      ["user", "tool_result"],
      ["assistant", "text"],
      ["user", "text"],
    ]);
    expect(out[3]!.content).toEqual([{ type: "text", text: CONTINUATION_NOTE }]);
    expect(out[4]).toBe(conversation[3]);
    const wire = { thinking: { type: "adaptive" }, messages: toAnthropicMessages(out) };
    expect(toolLoopThinkingProblem(wire)).toBeUndefined();
    const unmended = { ...wire, messages: toAnthropicMessages(edited.map(withoutThinking)) };
    expect(toolLoopThinkingProblem(unmended)).toBeDefined();
  });

  it("closes an exchange ending in a message of results and the user's words (the API's own shape) after it, the message whole (review 55g #1)", () => {
    const conversation = new ConversationBuilder()
      .user("fix the bug")
      .assistant([thinking("t1"), { type: "tool_use", id: "toolu_1", name: "read", input: {} }])
      .build();
    const [first, caller] = conversation;
    const mixed = {
      ...first!,
      id: "mixed",
      content: [
        { type: "tool_result", toolUseId: "toolu_1", content: "r1", isError: false },
        { type: "text", text: "Thanks" },
      ],
    } as Message;
    const before = [first!, caller!, mixed];
    const edited = [
      { ...first!, content: [{ type: "text", text: "[summary]" }] } as Message,
      caller!,
      mixed,
    ];
    const { conversation: out, repair } = keepThinkingValid(before, edited, () => new Date(0));
    expect(repair.toolExchangeClosed).toBe(true);
    expect(out[2]).toBe(mixed);
    expect(out.slice(3).map((message) => message.content)).toEqual([
      [{ type: "text", text: CONTINUATION_NOTE }],
      [{ type: "text", text: CONTINUATION_REQUEST }],
    ]);
    const wire = { thinking: { type: "adaptive" }, messages: toAnthropicMessages(out) };
    expect(toolLoopThinkingProblem(wire)).toBeUndefined();
  });

  it("leaves an open exchange alone when its assistant message kept its thinking", () => {
    const conversation = thinkingLoop();
    const appended = [...conversation];
    appended.push({ ...conversation[1]!, id: "extra" } as Message);
    const { repair } = keepThinkingValid(conversation, appended);
    expect(repair.firstChange).toBe(conversation.length);
    expect(repair.toolExchangeClosed).toBe(false);
  });

  it("says so in a text block when an assistant message held only thinking", () => {
    const conversation = new ConversationBuilder()
      .user("hi")
      .assistant([thinking("only")])
      .user("and?")
      .build();
    const edited = [
      { ...conversation[0]!, content: [{ type: "text", text: "hi!" }] } as Message,
      ...conversation.slice(1),
    ];
    const { conversation: out } = keepThinkingValid(conversation, edited);
    expect(out[1]?.content).toEqual([{ type: "text", text: "[thinking omitted]" }]);
  });
});

describe("keepThinkingValid after the API's compaction block", () => {
  const compactionMessage = (conversation: readonly Message[]): Message => ({
    ...conversation[0]!,
    id: "compaction",
    role: "assistant",
    turnId: { owner: "u", number: 0 },
    content: [
      { type: "opaque", block: { type: "compaction", content: "Summary.", signature: "sig" } },
    ],
  });

  it("keeps the thinking of the turns kept unchanged after a new leading block", () => {
    const conversation = thinkingLoop();
    // Summarize the first exchange: the kept part starts with the second call (an assistant
    // message after a user message, so the API does not merge it into the summary).
    const after = [compactionMessage(conversation), ...conversation.slice(3)];
    const { conversation: out, repair } = keepThinkingValid(conversation, after);
    expect(out).toEqual(after);
    expect(thinkingOf(out)).toEqual(["1:t2", "3:t3"]);
    expect(repair).toMatchObject({ firstChange: after.length, thinkingBlocksDropped: 0 });
  });

  it("removes it from an edit in the kept part on, and when the kept part would be merged into the summary", () => {
    const conversation = thinkingLoop();
    const edited = [compactionMessage(conversation), ...conversation.slice(3)];
    edited[3] = {
      ...edited[3]!,
      content: [
        { type: "tool_result", toolUseId: "toolu_2", content: "[cleared]", isError: false },
      ],
    } as Message;
    expect(thinkingOf(keepThinkingValid(conversation, edited).conversation)).toEqual(["1:t2"]);
    // The kept part starts with a system message: the API merges it into the summary.
    const system: Message = {
      ...conversation[2]!,
      id: "system",
      content: [
        {
          type: "opaque",
          block: {
            type: "agentCompaction:systemMessage",
            message: { role: "system", content: "Hurry." },
          },
        },
      ],
    };
    const before = [...conversation.slice(0, 3), system, ...conversation.slice(3)];
    const merged = [compactionMessage(before), ...before.slice(3)];
    const { repair } = keepThinkingValid(before, merged);
    expect(repair.firstChange).toBe(1);
    expect(repair.thinkingBlocksDropped).toBe(2);
  });

  it("closes an open exchange that ends in system messages like any other", () => {
    const conversation = thinkingLoop();
    const system: Message = {
      ...conversation.at(-1)!,
      id: "system",
      content: [
        {
          type: "opaque",
          block: {
            type: "agentCompaction:systemMessage",
            message: { role: "system", content: "Hurry." },
          },
        },
      ],
    };
    const before = [...conversation, system];
    const edited = [...before];
    edited[2] = {
      ...edited[2]!,
      content: [
        { type: "tool_result", toolUseId: "toolu_1", content: "[cleared]", isError: false },
      ],
    } as Message;
    const { conversation: out, repair } = keepThinkingValid(before, edited, () => new Date(0));
    expect(repair.toolExchangeClosed).toBe(true);
    expect(out.at(-3)).toBe(system);
    expect(out.at(-1)!.content).toEqual([{ type: "text", text: CONTINUATION_REQUEST }]);
  });
});
