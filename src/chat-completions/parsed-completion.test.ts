import OpenAI from "openai";
import { zodFunction, zodResponseFormat } from "openai/helpers/zod";
import { makeParseableTool } from "openai/lib/parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ChatCompletionsServer,
  chatMessagesProblem,
} from "../../test/support/chat-completions-server.js";
import { AgentSession } from "../index.js";
import { appendChatCompletion } from "./chat-completion.js";
import { toChatMessages } from "./chat-messages-out.js";

// The SDK's `chat.completions.parse()` (and `stream().finalChatCompletion()`) adds to the reply
// what it read from it: `message.parsed` and each call's `function.parsed_arguments`. The API
// never sends them and a request does not take them (`ChatCompletionAssistantMessageParam`);
// kept, they went back with every later request, a second copy of each call's arguments, and a
// parser's `Date` made the reply a ValidationError (review 57c #2).

const ARGUMENTS = JSON.stringify({ when: "2026-12-07", note: "n".repeat(400) });
let server: ChatCompletionsServer;
let client: OpenAI;

beforeAll(async () => {
  server = await ChatCompletionsServer.start((request) => {
    const messages = request.body["messages"] as { role: string }[];
    return messages.at(-1)?.role === "tool"
      ? { content: JSON.stringify({ answer: "done", when: "2026-12-07" }) }
      : { toolCalls: [{ name: "schedule", arguments: ARGUMENTS }] };
  });
  client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
});
afterAll(() => server.close());

/** Two requests of the README's loop, each reply taken from `parse()` as it came. */
async function loop(tools: Parameters<OpenAI["chat"]["completions"]["parse"]>[0]["tools"]) {
  const session = new AgentSession({ contextLimit: 100_000 });
  session.addUserText("Schedule it.");
  const response_format = zodResponseFormat(
    z.object({ answer: z.string(), when: z.string() }),
    "a",
  );
  for (let request = 0; request < 2; request += 1) {
    const completion = await client.chat.completions.parse({
      model: "gpt-5.6-luna",
      messages: toChatMessages(session.messages),
      ...(tools === undefined ? {} : { tools }),
      response_format,
    });
    const { message } = appendChatCompletion(session, completion);
    const calls = (message?.content ?? []).filter((block) => block.type === "tool_use");
    if (calls.length === 0) break;
    session.addToolResults(
      calls.map((call) => ({ type: "tool_result" as const, toolUseId: call.id, content: "ok" })),
    );
  }
  return toChatMessages(session.messages);
}

describe("a reply from the SDK's parse()", () => {
  it("goes back without the SDK's parsed and parsed_arguments, the rest as it came", async () => {
    const sent = await loop([
      zodFunction({
        name: "schedule",
        parameters: z.object({ when: z.string(), note: z.string() }),
      }),
    ]);
    const replies = sent.filter((message) => message.role === "assistant");
    expect(replies).toHaveLength(2);
    expect(JSON.stringify(sent)).not.toMatch(/"parsed(_arguments)?"/);
    expect(replies[0]).toMatchObject({
      tool_calls: [{ type: "function", function: { name: "schedule", arguments: ARGUMENTS } }],
    });
    expect(replies[1]).toMatchObject({
      content: JSON.stringify({ answer: "done", when: "2026-12-07" }),
    });
    expect(chatMessagesProblem(sent, { reasoning: "ignored", issuedReasoning: new Map() })).toBe(
      undefined,
    );
  });

  it("is appended when a tool's parser returns what JSON cannot hold (a Date)", async () => {
    const schedule = makeParseableTool(
      {
        type: "function",
        function: { name: "schedule", strict: true, parameters: { type: "object" } },
      },
      {
        parser: (text) => ({ ...JSON.parse(text), when: new Date("2026-12-07") }),
        callback: undefined,
      },
    );
    const sent = await loop([schedule]);
    expect(sent.filter((message) => message.role === "tool")).toHaveLength(1);
  });
});
