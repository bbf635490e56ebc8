import { describe, expect, it } from "vitest";
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
