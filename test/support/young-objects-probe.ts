/**
 * Run by `test/code/young-objects.test.ts` in a process of its own, with V8's
 * `--allow-natives-syntax` and `--expose-gc`: converts a conversation to each provider's wire
 * format and back, keeping each round's results alive through two young-generation
 * collections, as a long conversion or a request awaiting its model keeps them. An object
 * literal's allocation site is then pretenured by V8, and the next round makes its objects in
 * the old generation (see `src/core/message-shapes.ts`). Prints, as JSON, for each way, how
 * many of the last round's messages, blocks and wire objects were made in the old generation.
 */

import { buildPeerConversation } from "../../bench/peers.js";
import { fromModelMessages, toModelMessages } from "../../src/ai-sdk/index.js";
import { fromAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { fromChatMessages, toChatMessages } from "../../src/chat-completions/index.js";
import type { Message } from "../../src/core/message.js";
import { fromGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { fromResponsesInput, toResponsesInput } from "../../src/openai/index.js";

declare function gc(options?: { type: "minor" }): void;

/** V8's own answer, compiled only under `--allow-natives-syntax`. */
const inYoungGeneration = new Function("value", "return %InYoungGeneration(value);") as (
  value: unknown,
) => boolean;

const ROUNDS = 6;
const conversation = buildPeerConversation(1000);

/** Every object `value` holds, itself included, to a few levels down. */
function objectsIn(value: unknown, into = new Set<object>(), depth = 0): Set<object> {
  if (typeof value !== "object" || value === null || depth > 6 || into.has(value)) return into;
  into.add(value);
  for (const field of Object.values(value)) objectsIn(field, into, depth + 1);
  return into;
}

/**
 * The objects a conversion or a writing made: those its result holds but its input does not
 * (a tool input handed on), less frozen ones (constants shared by design, made once).
 */
function made(result: unknown, input: unknown): unknown[] {
  const given = objectsIn(input);
  return [...objectsIn(result)].filter((each) => !given.has(each) && !Object.isFrozen(each));
}

/**
 * Rounds of `run`, each round's result held through two young collections; then the fewest
 * old objects of three more rounds, each after two young collections (a collection that falls
 * inside one promotes what that round made so far: not a site's doing).
 */
function oldAfterRounds(run: () => unknown[]): { old: number; of: number } {
  const held: unknown[][] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    held.push(run());
    gc({ type: "minor" });
    gc({ type: "minor" });
    held.length = 0;
  }
  let fewest = { old: Number.POSITIVE_INFINITY, of: 0 };
  for (let round = 0; round < 3; round += 1) {
    gc({ type: "minor" });
    gc({ type: "minor" });
    const last = run();
    let old = 0;
    for (const object of last) if (!inYoungGeneration(object)) old += 1;
    if (old < fewest.old) fewest = { old, of: last.length };
  }
  return fewest;
}

const ways: Record<
  string,
  {
    wire: () => readonly unknown[];
    read: (items: never) => Message[];
    write: (messages: Message[]) => readonly unknown[];
  }
> = {
  anthropic: {
    wire: () => toAnthropicMessages(conversation),
    read: (items) => fromAnthropicMessages(items),
    write: (messages) => toAnthropicMessages(messages),
  },
  "ai-sdk": {
    wire: () => toModelMessages(conversation),
    read: (items) => fromModelMessages(items),
    write: (messages) => toModelMessages(messages),
  },
  "chat-completions": {
    wire: () => toChatMessages(conversation),
    read: (items) => fromChatMessages(items),
    write: (messages) => toChatMessages(messages),
  },
  gemini: {
    wire: () => toGeminiContents(conversation),
    read: (items) => fromGeminiContents(items),
    write: (messages) => toGeminiContents(messages),
  },
  responses: {
    wire: () => toResponsesInput(conversation),
    read: (items) => fromResponsesInput(items),
    write: (messages) => toResponsesInput(messages),
  },
};

const report: Record<
  string,
  { read: { old: number; of: number }; write: { old: number; of: number } }
> = {};
for (const [name, way] of Object.entries(ways)) {
  const items = way.wire();
  const read = oldAfterRounds(() => made(way.read(items as never), items));
  const messages = way.read(items as never);
  const write = oldAfterRounds(() => made(way.write(messages), messages));
  report[name] = { read, write };
}
process.stdout.write(`${JSON.stringify(report)}\n`);
