import type { BaseMessage } from "@langchain/core/messages";
import type { ModelMessage } from "ai";
import { compactModelMessages, toModelMessages } from "../../src/ai-sdk/index.js";
import { compactAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { compactChatMessages, toChatMessages } from "../../src/chat-completions/index.js";
import type { Message } from "../../src/core/message.js";
import { compactGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { compactLangChainMessages, toLangChainMessages } from "../../src/langchain/index.js";
import { compactResponsesInput, toResponsesInput } from "../../src/openai/index.js";
import type {
  CompactedMessages,
  CompactMessagesOptions,
} from "../../src/session/stateless-options.js";
import { ConversationBuilder } from "../../src/testing/index.js";

// The six one-call helpers a `CompactionMemory` serves, and a conversation to serve them: for
// the tests of test/promises/compaction-memory*.test.ts.

/** A one-call helper and its format. */
export interface Format {
  /** A turn's messages in the helper's format (the client appends them to its history). */
  to: (messages: readonly Message[]) => unknown[];
  compact: (
    wire: unknown[],
    options: CompactMessagesOptions,
  ) => Promise<CompactedMessages<unknown>>;
}

/** Each one-call helper, by its name. */
export const FORMATS: Record<string, Format> = {
  compactAnthropicMessages: {
    to: (messages) => toAnthropicMessages(messages),
    compact: (wire, options) => compactAnthropicMessages(wire, options),
  },
  compactResponsesInput: {
    to: (messages) => toResponsesInput(messages),
    compact: (wire, options) => compactResponsesInput(wire, options),
  },
  compactGeminiContents: {
    to: (messages) => toGeminiContents(messages),
    compact: (wire, options) => compactGeminiContents(wire, options),
  },
  compactChatMessages: {
    to: (messages) => toChatMessages(messages),
    compact: (wire, options) => compactChatMessages(wire, options),
  },
  compactModelMessages: {
    to: (messages) => toModelMessages(messages),
    compact: (wire, options) => compactModelMessages(wire as ModelMessage[], options),
  },
  compactLangChainMessages: {
    to: (messages) => toLangChainMessages(messages),
    compact: (wire, options) => compactLangChainMessages(wire as BaseMessage[], options),
  },
};

/** Turns of a request, two reads and an answer each, their tool ids distinct. */
export const TURNS: readonly Message[][] = (() => {
  const builder = new ConversationBuilder();
  for (let number = 1; number <= 30; number += 1) {
    builder.user(`Request ${number}: look at module ${number}.`);
    for (let call = 1; call <= 2; call += 1)
      builder.toolCall({
        name: "read_file",
        input: { path: `src/m${number}/f${call}.ts` },
        result: `// src/m${number}/f${call}.ts\n${"export const value = 1;\n".repeat(80)}`,
      });
    builder.assistant(`Done with request ${number}.`);
  }
  const turns: Message[][] = [];
  for (const message of builder.build()) {
    if (message.role === "user" && message.content[0]?.type === "text") turns.push([]);
    turns.at(-1)!.push(message);
  }
  return turns;
})();

/** The messages of turn `number` (from 1). */
export const turn = (number: number): Message[] => TURNS[number - 1]!;

/** Each message as JSON. */
export const serialized = (messages: readonly unknown[]) =>
  messages.map((each) => JSON.stringify(each));

/** Whether `request` starts with every message of `before`, the same data. */
export function continues(request: readonly string[], before: readonly string[]): boolean {
  return before.every((message, index) => request[index] === message);
}

/** The first `turns` turns in `format`. */
export const historyOf = (format: Format, turns: number): unknown[] =>
  Array.from({ length: turns }, (_, at) => format.to(turn(at + 1))).flat();
