import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  type MessageContent,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { fromModelMessages } from "../ai-sdk/index.js";
import { isBookkeepingKey } from "../core/bookkeeping-keys.js";
import type { Message } from "../index.js";
import { fromLangChainMessages, toLangChainMessages } from "./index.js";

// Review 58c: toLangChainMessages gave a block another adapter carried back with that adapter's
// bookkeeping on it (`aiSdk:data`, `openai:item`, …), and a system message another adapter
// carried with its fields (`providerOptions`): only LangChain's own fields go out now, as the
// Anthropic adapter leaves out the others' bookkeeping.

/** Every key named as bookkeeping anywhere in `value`, with its path. */
function marksIn(value: unknown, path = ""): string[] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => marksIn(item, `${path}[${index}]`));
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(isBookkeepingKey(key) ? [`${path}.${key}`] : []),
    ...marksIn(item, `${path}.${key}`),
  ]);
}

/** What LangChain keeps of each message: its fields, as its serialization writes them. */
const kwargsOf = (messages: readonly BaseMessage[]) =>
  messages.map((message) => (message as unknown as { lc_kwargs: unknown }).lc_kwargs);

const at = (turn: number) => ({ owner: "u", number: turn });
const base = { sessionId: "s", createdAt: new Date(0) };

describe("toLangChainMessages of blocks other adapters carried", () => {
  it("leaves out the AI SDK's marks, and its fields on a system message", () => {
    const ours = fromModelMessages([
      { role: "system", content: "Be brief.", providerOptions: { anthropic: { cache: true } } },
      {
        role: "user",
        content: [
          { type: "text", text: "Look." },
          { type: "file", mediaType: "application/pdf", data: Uint8Array.from([1, 2, 3, 4]) },
        ],
      },
    ] as never);
    const out = toLangChainMessages(ours);
    expect(marksIn(kwargsOf(out))).toEqual([]);
    expect(out[0]).toBeInstanceOf(SystemMessage);
    expect(kwargsOf(out)[0]).not.toHaveProperty("providerOptions");
    expect(out[0]!.content).toBe("Be brief.");
    // The part itself goes as the AI SDK wrote it, its data as base64 text.
    expect((out[1]!.content as unknown as Record<string, unknown>[])[1]).toEqual({
      type: "file",
      mediaType: "application/pdf",
      data: "AQIDBA==",
    });
  });

  it("leaves out every adapter's marks on a carried block, in human, AI and tool messages", () => {
    const marked = (type: string) => ({
      type: "opaque" as const,
      block: {
        type,
        payload: 1,
        "openai:item": true,
        "gemini:content": { role: "user" },
        "chatCompletions:part": true,
        "aiSdk:providerOptions": { x: 1 },
        "agentCompaction:note": "x",
      },
    });
    const ours: Message[] = [
      { ...base, id: "u", role: "user", turnId: at(1), content: [marked("custom_a")] },
      {
        ...base,
        id: "a",
        role: "assistant",
        turnId: at(1),
        content: [marked("custom_b"), { type: "tool_use", id: "c", name: "t", input: {} }],
      },
      {
        ...base,
        id: "r",
        role: "user",
        turnId: at(1),
        content: [
          { type: "tool_result", toolUseId: "c", content: [marked("custom_c")], isError: false },
        ],
      },
    ];
    const out = toLangChainMessages(ours);
    expect(out.map((message) => message.type)).toEqual(["human", "ai", "tool"]);
    expect(marksIn(kwargsOf(out))).toEqual([]);
    expect((out[0]!.content as unknown as unknown[])[0]).toEqual({ type: "custom_a", payload: 1 });
  });

  it("gives LangChain's own messages back as they came", () => {
    const bytes = Buffer.from([9, 8, 7]);
    const input: BaseMessage[] = [
      new SystemMessage({ content: "Rules.", id: "sys", name: "policy" }),
      new HumanMessage({
        content: [{ type: "file", mimeType: "application/pdf", data: bytes }] as MessageContent,
      }),
      new AIMessage({ content: "", tool_calls: [{ id: "c", name: "t", args: {} }] }),
      new ToolMessage({ content: "ok", tool_call_id: "c", artifact: { n: 1 } }),
    ];
    const out = toLangChainMessages(fromLangChainMessages(input));
    expect(kwargsOf([out[0]!])).toEqual(kwargsOf([input[0]!]));
    expect((out[1]!.content as unknown as { data: unknown }[])[0]!.data).toEqual(bytes);
    expect(marksIn(kwargsOf(out))).toEqual([]);
  });
});
