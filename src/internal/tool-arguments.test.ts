import { describe, expect, it } from "vitest";
import {
  appendChatCompletion,
  fromChatMessages,
  toChatMessages,
} from "../chat-completions/index.js";
import type { Message, ToolUseBlock } from "../core/message.js";
import { AgentSession } from "../index.js";
import { appendOpenAIResponse, fromResponsesInput, toResponsesInput } from "../openai/index.js";
import { MAX_JSON_DEPTH } from "./json-value.js";
import { nestsTooDeep, parseToolArguments, readToolArguments } from "./tool-arguments.js";

/** A JSON object text nesting `depth` objects: `{"a":{"a":…1…}}`. */
const deep = (depth: number): string => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

const callOf = (messages: readonly Message[]): ToolUseBlock | undefined =>
  messages
    .flatMap((message) => message.content)
    .find((block): block is ToolUseBlock => block.type === "tool_use");

const responsesInput = (args: string) => [
  { role: "user" as const, content: "a" },
  { type: "function_call" as const, call_id: "c1", name: "r", arguments: args },
];

const chatMessages = (args: string) => [
  { role: "user" as const, content: "a" },
  {
    role: "assistant" as const,
    content: null,
    tool_calls: [{ id: "c1", type: "function" as const, function: { name: "r", arguments: args } }],
  },
];

describe("nestsTooDeep", () => {
  it("counts brackets outside strings only", () => {
    expect(nestsTooDeep(deep(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsTooDeep(deep(MAX_JSON_DEPTH + 1))).toBe(true);
    const brackets = "[{".repeat(400);
    expect(nestsTooDeep(JSON.stringify({ text: brackets }))).toBe(false);
    // Escaped quotes do not end the string; an escaped backslash before a quote does.
    expect(nestsTooDeep(JSON.stringify({ text: `\\"${brackets}` }))).toBe(false);
    expect(nestsTooDeep(JSON.stringify({ a: "\\", b: [deep(300)] }))).toBe(false);
    expect(nestsTooDeep(`{"a":"\\\\",${deep(300).slice(1)}`)).toBe(true);
    expect(nestsTooDeep(`"${"[".repeat(600)}`)).toBe(false);
  });
});

describe("tool arguments nesting deeper than MAX_JSON_DEPTH", () => {
  it("are kept as text standing for an empty input, as malformed arguments are", () => {
    expect(readToolArguments(deep(MAX_JSON_DEPTH))?.input).toBeDefined();
    expect(readToolArguments(deep(MAX_JSON_DEPTH + 1))).toBeUndefined();
    expect(parseToolArguments(deep(100_000))).toEqual({ input: {}, keep: true });
  });

  for (const depth of [5_000, 100_000]) {
    it(`at ${depth} levels: read by every adapter without a RangeError, sent back verbatim`, () => {
      const args = deep(depth);
      const responses = fromResponsesInput(responsesInput(args));
      expect(callOf(responses)?.input).toEqual({});
      expect(toResponsesInput(responses)[1]).toMatchObject({ arguments: args });

      const chat = fromChatMessages(chatMessages(args));
      expect(callOf(chat)?.input).toEqual({});
      expect(toChatMessages(chat)[1]).toMatchObject({
        tool_calls: [{ function: { arguments: args } }],
      });

      const openai = new AgentSession({ contextLimit: 10_000 });
      openai.addUserText("a");
      const appended = appendOpenAIResponse(openai, {
        id: "resp_1",
        output: [{ type: "function_call", id: "fc", call_id: "c1", name: "r", arguments: args }],
        usage: { input_tokens: 1, output_tokens: 1 },
      } as never);
      expect(appended.message?.content[0]).toMatchObject({ type: "tool_use", input: {} });

      const chatSession = new AgentSession({ contextLimit: 10_000 });
      chatSession.addUserText("a");
      const completion = appendChatCompletion(chatSession, {
        choices: [{ message: chatMessages(args)[1]! as never }],
        usage: { prompt_tokens: 1, completion_tokens: 1 },
      });
      expect(completion.message?.content[0]).toMatchObject({ type: "tool_use", input: {} });
      expect(toChatMessages(chatSession.messages)[1]).toMatchObject({
        tool_calls: [{ function: { arguments: args } }],
      });
    });
  }

  for (const depth of [MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 300]) {
    it(`at ${depth} levels: what the adapters read, a session takes`, () => {
      const args = deep(depth);
      for (const messages of [
        fromResponsesInput(responsesInput(args)),
        fromChatMessages(chatMessages(args)),
      ]) {
        const session = new AgentSession({ contextLimit: 1_000_000 });
        session.append(...messages);
        const input = callOf(session.messages)?.input;
        if (depth <= MAX_JSON_DEPTH) expect(input).toEqual(JSON.parse(args));
        else expect(input).toEqual({});
      }
    });
  }
});
