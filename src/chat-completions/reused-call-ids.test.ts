import OpenAI from "openai";
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import {
  ChatCompletionsServer,
  type ChatScript,
  chatMessagesProblem,
} from "../../test/support/chat-completions-server.js";
import { AgentSession, validateConversation } from "../index.js";
import { appendChatCompletion } from "./chat-completion.js";
import { toChatMessages } from "./chat-messages-out.js";
import { compactChatMessages } from "./compact-messages.js";
import { chatCompletionsRequest } from "./request.js";

/**
 * Review 55a's finding 2: a host that numbers each reply's calls sends `call_0` every time; the
 * session takes an answered call's id again, and `toChatMessages` sent both calls as `call_0`,
 * which the API refuses ("duplicate 'tool_call_id' of 'call_0' in 'tool_calls'").
 */

const READ_TOOL = {
  type: "function" as const,
  function: {
    name: "read",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
};
const STEPS = 6;

/** A read per request, its call always `call_0`, until STEPS reads were made. */
const numbering: ChatScript = (request) => {
  const messages = request.body["messages"] as { role: string }[];
  const reads = messages.filter((message) => message.role === "tool").length;
  if (reads >= STEPS) return { content: "All read." };
  return {
    content: `Reading ${reads}.`,
    toolCalls: [{ id: "call_0", name: "read", arguments: JSON.stringify({ path: `f${reads}` }) }],
  };
};

let server: ChatCompletionsServer | undefined;
afterEach(() => server?.close());

const callIds = (messages: readonly ChatCompletionMessageParam[]) =>
  messages.flatMap((message) =>
    message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : [],
  );

describe("a host that sends call_0 in every reply", () => {
  it("has every request of the loop accepted, each call sent with an id of its own", async () => {
    server = await ChatCompletionsServer.start(numbering);
    const client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
    const description = { model: "qwen3-coder", system: "You read code.", tools: [READ_TOOL] };
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Read the files.");
    for (let step = 0; step <= STEPS; step += 1) {
      // What the request sends is valid by each provider's rules: the reused id is no problem.
      expect(validateConversation(session.messages)).toEqual([]);
      expect(validateConversation(session.messages, { provider: "chat-completions" })).toEqual([]);
      const completion = await client.chat.completions.create(
        chatCompletionsRequest(description, session.messages),
      );
      appendChatCompletion(session, completion);
      const calls = (completion.choices[0]?.message.tool_calls ??
        []) as ChatCompletionMessageFunctionToolCall[];
      if (calls.length === 0) break;
      expect(calls.map((call) => call.id)).toEqual(["call_0"]);
      session.addToolResults(
        calls.map((call) => ({ type: "tool_result", toolUseId: call.id, content: "source" })),
      );
    }

    expect(server.refusals).toEqual([]);
    expect(server.requests.length).toBe(STEPS + 1);
    const sent = toChatMessages(session.messages);
    expect(callIds(sent)).toEqual([
      "call_0",
      "call_0_2",
      "call_0_3",
      "call_0_4",
      "call_0_5",
      "call_0_6",
    ]);
    // Each result goes with its own call.
    const answers = sent.flatMap((message) =>
      message.role === "tool" ? [message.tool_call_id] : [],
    );
    expect(answers).toEqual(callIds(sent));
    // The session keeps the ids as the host gave them.
    expect(JSON.stringify(session.messages).match(/"call_0_\d/g)).toBeNull();
  });

  it("has compactChatMessages send a reused id anew, the caller's messages otherwise", async () => {
    const call = (path: string) => ({
      role: "assistant" as const,
      content: null,
      tool_calls: [
        { id: "call_0", type: "function" as const, function: { name: "read", arguments: path } },
      ],
    });
    const answer = { role: "tool" as const, tool_call_id: "call_0", content: "source" };
    const input: ChatCompletionMessageParam[] = [
      { role: "user", content: "Read." },
      call("a"),
      answer,
      call("b"),
      answer,
      { role: "assistant", content: "Done." },
    ];
    const { messages, compacted } = await compactChatMessages(input, { contextLimit: 100_000 });
    expect(compacted).toBe(true);
    expect(callIds(messages)).toEqual(["call_0", "call_0_2"]);
    expect(messages[4]).toMatchObject({ role: "tool", tool_call_id: "call_0_2" });
    expect(messages.slice(0, 3)).toEqual(input.slice(0, 3));
    expect(messages[1]).toBe(input[1]);
    expect(
      chatMessagesProblem(messages, { reasoning: "ignored", issuedReasoning: new Map() }),
    ).toBeUndefined();
  });
});
