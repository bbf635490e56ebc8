import { describe, expect, it } from "vitest";
import { compactModelMessages, toModelMessages } from "../ai-sdk/index.js";
import { compactAnthropicMessages, toAnthropicMessages } from "../anthropic/index.js";
import { compactChatMessages, toChatMessages } from "../chat-completions/index.js";
import type { Message } from "../core/message.js";
import { compactGeminiContents, toGeminiContents } from "../gemini/index.js";
import { compactLangChainMessages, toLangChainMessages } from "../langchain/index.js";
import { compactResponsesInput, toResponsesInput } from "../openai/index.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MemoryArchive } from "./archive.js";

/** 30 turns of a read whose input nests objects, then the next request. */
function reads(): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 0; turn < 30; turn += 1)
    builder.user(`request ${"r".repeat(400)} ${turn}`).toolCall({
      name: "read",
      input: { path: `a${turn}.ts`, range: { from: turn, lines: [1, 2] } },
      result: "x".repeat(2_000),
    });
  return builder.user("next").build();
}

/** Every object `value` holds, itself included (a bounded walk). */
function objectsOf(value: unknown, into: object[] = [], depth = 0): object[] {
  if (depth > 20 || typeof value !== "object" || value === null) return into;
  into.push(value);
  for (const inner of Object.values(value)) objectsOf(inner, into, depth + 1);
  return into;
}

const helpers = {
  "AI SDK": (archive: MemoryArchive) => {
    const input = toModelMessages(reads());
    return { input, done: compactModelMessages(input, { contextLimit: 6_000, archive }) };
  },
  Anthropic: (archive: MemoryArchive) => {
    const input = toAnthropicMessages(reads());
    return { input, done: compactAnthropicMessages(input, { contextLimit: 6_000, archive }) };
  },
  Responses: (archive: MemoryArchive) => {
    const input = toResponsesInput(reads());
    return { input, done: compactResponsesInput(input, { contextLimit: 6_000, archive }) };
  },
  "Chat Completions": (archive: MemoryArchive) => {
    const input = toChatMessages(reads());
    return { input, done: compactChatMessages(input, { contextLimit: 6_000, archive }) };
  },
  Gemini: (archive: MemoryArchive) => {
    const input = toGeminiContents(reads());
    return { input, done: compactGeminiContents(input, { contextLimit: 6_000, archive }) };
  },
  LangChain: (archive: MemoryArchive) => {
    const input = toLangChainMessages(reads());
    return { input, done: compactLangChainMessages(input, { contextLimit: 6_000, archive }) };
  },
};

// The memory archive freezes what it keeps; what it keeps outlives the call. A one-call helper
// that shared the caller's objects with its records froze the caller's tool inputs (the AI SDK's
// did: review 59c), which a caller that builds on them then cannot change.
describe("a one-call helper with an archive", () => {
  for (const [name, run] of Object.entries(helpers))
    it(`${name}: leaves every object of the caller's messages as it was (none frozen)`, async () => {
      const archive = new MemoryArchive();
      const { input, done } = run(archive);
      const before = objectsOf(input).filter((object) => !Object.isFrozen(object)).length;
      const { compacted } = await done;
      expect(compacted).toBe(true);
      expect(archive.records("stateless").length).toBeGreaterThan(0);
      const after = objectsOf(input).filter((object) => !Object.isFrozen(object)).length;
      expect(after).toBe(before);
    });
});
