import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../core/message.js";
import { AgentSession } from "../session/agent-session.js";
import { fromChatMessages } from "./chat-messages-in.js";
import { toChatMessages } from "./chat-messages-out.js";
import { compactChatMessages } from "./compact-messages.js";
import { joinedUserMessages } from "./joined-user-messages.js";

/**
 * The library's summary or notice and the first kept request go as one user message: hosts
 * whose chat template wants user and assistant to alternate (Gemma, older Mistral on vLLM or
 * llama.cpp) refuse two user messages in a row.
 */

const FILE = "export const value = 42;\n".repeat(160);
const REQUEST = "Read the files under src/ one by one.";

/** One request and `to - from + 1` read steps after it (a long single-turn loop). */
function steps(from: number, to: number): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (let step = from; step <= to; step += 1) {
    const id = `call_${step}`;
    const args = JSON.stringify({ path: `src/f${step}.ts` });
    out.push({
      role: "assistant",
      content: `Reading file ${step}.`,
      tool_calls: [{ id, type: "function", function: { name: "read", arguments: args } }],
    });
    out.push({ role: "tool", tool_call_id: id, content: FILE });
  }
  return out;
}

const loop = (calls: number): ChatCompletionMessageParam[] => [
  { role: "user", content: REQUEST, name: "ada" },
  ...steps(1, calls),
];

/** How many times a user message follows a user message. */
function userRuns(messages: readonly ChatCompletionMessageParam[]): number {
  let runs = 0;
  for (let index = 1; index < messages.length; index += 1)
    if (messages[index]!.role === "user" && messages[index - 1]!.role === "user") runs += 1;
  return runs;
}

const count = (text: string, part: string) => text.split(part).length - 1;
const NOTICE = "[Earlier messages were removed to fit the context window]";

describe("the library's user message and the request beside it go as one", () => {
  it("compactChatMessages: the notice's parts, then the request's, with the request's fields", async () => {
    const { messages, compacted } = await compactChatMessages(loop(30), { contextLimit: 12_000 });
    expect(compacted).toBe(true);
    expect(userRuns(messages)).toBe(0);
    const first = messages[0]!;
    expect(first.role).toBe("user");
    expect(first).toMatchObject({ name: "ada" });
    const parts = first.content as { type: string; text: string }[];
    expect(parts[0]!.text.startsWith(NOTICE)).toBe(true);
    expect(parts.at(-1)).toEqual({ type: "text", text: REQUEST });
  });

  it("read back, the notice stays the library's: the next compaction replaces it, the request stays", async () => {
    const once = await compactChatMessages(loop(30), { contextLimit: 12_000 });
    const ours = fromChatMessages(once.messages);
    expect(ours[0]!.turnId).toEqual({ owner: "u", number: 0 });
    expect(ours[1]!.content).toEqual([expect.objectContaining({ type: "text", text: REQUEST })]);
    const again = await compactChatMessages([...once.messages, ...steps(31, 60)], {
      contextLimit: 12_000,
    });
    const text = JSON.stringify(again.messages);
    expect(again.compacted).toBe(true);
    expect(count(text, NOTICE)).toBe(1);
    expect(count(text, REQUEST)).toBe(1);
    expect(userRuns(again.messages)).toBe(0);
  });

  it("toChatMessages of a session that compacted", async () => {
    const session = new AgentSession({ model: "gpt-6.1-sol", contextLimit: 12_000 });
    session.append(...fromChatMessages(loop(30), { sessionId: session.sessionId }));
    expect((await session.maybeCompact()).compacted).toBe(true);
    const messages = toChatMessages(session.messages);
    expect(userRuns(messages)).toBe(0);
    expect(JSON.stringify(messages[0])).toContain(NOTICE);
    expect(JSON.stringify(messages[0])).toContain(REQUEST);
  });

  it("joinedUserMessages: with the user message after it, else before it; others untouched", () => {
    const notice = { role: "user", content: "notice" };
    const request = { role: "user", content: [{ type: "text", text: "request" }], name: "ada" };
    const reply = { role: "assistant", content: "reply" };
    expect(joinedUserMessages([notice, request, reply], [0])).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "notice" },
          { type: "text", text: "request" },
        ],
        name: "ada",
      },
      reply,
    ]);
    expect(joinedUserMessages([request, notice, reply], [1])).toEqual([
      { ...request, content: [...request.content, { type: "text", text: "notice" }] },
      reply,
    ]);
    // Nothing of the library's, or no user message beside it: the same messages.
    const alone = [reply, notice, reply];
    expect(joinedUserMessages(alone, [1])).toEqual(alone);
    const callers = [request, request];
    expect(joinedUserMessages(callers, [])).toBe(callers);
  });

  it("joinedUserMessages: the caller's messages beside the library's read from `seen`, not again", () => {
    /** A caller's message whose every field throws when read (as a getter that answered once). */
    const spent = (keys: string[]) => {
      const message: JsonObject = {};
      for (const key of keys)
        Object.defineProperty(message, key, {
          enumerable: true,
          get: () => {
            throw new Error("read again");
          },
        });
      return message;
    };
    const notice = { role: "user", content: "notice" };
    const request = spent(["content", "role"]);
    const asRead = { content: "request", role: "user" };
    const reply = spent(["role", "content"]);
    const parts = [
      { type: "text", text: "notice" },
      { type: "text", text: "request" },
    ];
    const seen = (entries: [number, JsonObject][]) => new Map(entries);
    // With the request after it: the caller's key order; the reply handed back, not read.
    const after = joinedUserMessages([notice, request, reply], [0], [], seen([[1, asRead]]));
    expect(after[0]).toEqual({ content: parts, role: "user" });
    expect(Object.keys(after[0]!)).toEqual(["content", "role"]);
    expect(after[1]).toBe(reply);
    // With the request before it, the message after it being no user message.
    const before = joinedUserMessages(
      [request, notice, reply],
      [1],
      [],
      seen([
        [0, asRead],
        [2, { role: "assistant" }],
      ]),
    );
    expect(before[0]).toEqual({ content: [parts[1], parts[0]], role: "user" });
    expect(before[1]).toBe(reply);
  });
});
