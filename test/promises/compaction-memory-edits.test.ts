import { describe, expect, it } from "vitest";
import { compactAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import type { Message } from "../../src/core/message.js";
import { CompactionError, LLMCompactor, type LlmClient } from "../../src/index.js";
import type {
  CompactedMessages,
  CompactMessagesOptions,
} from "../../src/session/stateless-options.js";
import { CompactionMemory } from "../../src/store/index.js";
import { continues, FORMATS, type Format, historyOf, serialized, turn } from "./memory-formats.js";

// Review 58b: what a `CompactionMemory` goes on from when the caller's messages are read
// through getters, changed in place after a call, or edited and sent again, and what a call
// waiting for another's compaction gets when that other caller aborts.

/** Index `at` of `array` read through a getter: its value once, then it throws. */
function readableOnce(array: unknown[], at: number): void {
  const value = array[at];
  let reads = 0;
  Object.defineProperty(array, at, {
    get: () => {
      reads += 1;
      if (reads > 1) throw new Error("read a second time");
      return value;
    },
    enumerable: true,
  });
}

describe("CompactionMemory reads each message of the caller's array once, as without it", () => {
  for (const [name, format] of Object.entries(FORMATS))
    it(`${name}: a message whose getter throws on its second read`, async () => {
      const memory = new CompactionMemory();
      const options = { contextLimit: 12_000, memory };
      const history = historyOf(format, 12);
      const first = history.slice();
      readableOnce(first, 3);
      // Without the single read, remembering the messages read them again: a raw `Error`.
      const done = await format.compact(first, options);
      expect(done.compacted).toBe(true);
      const next = [...history, ...format.to(turn(13))];
      readableOnce(next, 3);
      const again = await format.compact(next, options);
      expect(continues(serialized(again.messages), serialized(done.messages))).toBe(true);
    });
});

/** Rewrites in place every string of `value` holding turn 1's first file; how many it rewrote. */
function editInPlace(value: unknown, depth = 0): number {
  if (typeof value !== "object" || value === null || depth > 16) return 0;
  const record = value as Record<string, unknown>;
  let edited = 0;
  for (const key of Object.keys(record)) {
    const inner = record[key];
    if (typeof inner === "string" && inner.includes("// src/m1/f1.ts")) {
      record[key] = "The file was deleted.";
      edited += 1;
    } else edited += editInPlace(inner, depth + 1);
  }
  return edited;
}

describe("CompactionMemory and a message the caller changes in place after a call", () => {
  for (const [name, format] of Object.entries(FORMATS))
    it(`${name}: the next call sees the change (compacted as it is now, not continued)`, async () => {
      const memory = new CompactionMemory();
      const history = historyOf(format, 12);
      expect((await format.compact(history, { contextLimit: 12_000, memory })).compacted).toBe(
        true,
      );
      // The caller edits an old tool result's text in its own objects, then sends them again.
      // Remembered by reference, it was the same as itself: the next call went on from what
      // was sent for the text before the edit.
      expect(history.some((message) => editInPlace(message) > 0)).toBe(true);
      history.push(...format.to(turn(13)));
      const fresh = await format.compact(history, { contextLimit: 12_000 });
      const again = await format.compact(history, { contextLimit: 12_000, memory });
      expect(serialized(again.messages)).toEqual(serialized(fresh.messages));
    });

  it("a block pushed into a message's content is seen too", async () => {
    const memory = new CompactionMemory();
    const history = Array.from({ length: 12 }, (_, at) => toAnthropicMessages(turn(at + 1))).flat();
    await compactAnthropicMessages(history, { contextLimit: 12_000, memory });
    const content = history[2]!.content as unknown[];
    content.push({ type: "text", text: "One more thing about this file." });
    const fresh = await compactAnthropicMessages(history, { contextLimit: 12_000 });
    const again = await compactAnthropicMessages(history, { contextLimit: 12_000, memory });
    expect(serialized(again.messages)).toEqual(serialized(fresh.messages));
  });
});

/** Turn 14's request, edited by the user (a message of its own). */
const EDITED: Message[] = [
  {
    ...turn(14)[0]!,
    id: "edited",
    content: [{ type: "text", text: "Request 14, edited: look at module 99 instead." }],
  },
];

/**
 * A client that sends its whole history with each of 13 turns, then its 14th request, then that
 * request edited in its place (the user's "edit and resend"): what the helper sent for each of
 * the last two.
 */
async function editAndResend(
  format: Format,
  options: CompactMessagesOptions,
  parse: boolean,
): Promise<{ request: string[]; resent: string[] }> {
  const send = (messages: unknown[]) =>
    format.compact(parse ? JSON.parse(JSON.stringify(messages)) : messages, options);
  const history: unknown[] = [];
  for (let number = 1; number <= 13; number += 1) {
    history.push(...format.to(turn(number)));
    await send(history);
  }
  const request = await send([...history, ...format.to(turn(14)).slice(0, 1)]);
  const resent = await send([...history, ...format.to(EDITED)]);
  return { request: serialized(request.messages), resent: serialized(resent.messages) };
}

describe("CompactionMemory and a latest request edited and sent again", () => {
  for (const [name, format] of Object.entries(FORMATS))
    for (const parse of name === "compactLangChainMessages" ? [false] : [false, true])
      it(`${name}${parse ? " (parsed anew)" : ""}: goes on from what was sent before it`, async () => {
        const memory = new CompactionMemory();
        const { request, resent } = await editAndResend(
          format,
          { contextLimit: 12_000, memory },
          parse,
        );
        // The same request up to the edited message (the prompt cache reads it), then the edit.
        // Before, the whole history was compacted anew from its start.
        expect(resent.slice(0, -1)).toEqual(request.slice(0, -1));
        expect(resent.at(-1)).toEqual(serialized(format.to(EDITED)).at(-1));
      });

  for (const [name, format] of Object.entries(FORMATS))
    it(`${name}: a latest request that did not go as it came is compacted as it is`, async () => {
      const memory = new CompactionMemory();
      const options = { contextLimit: 12_000, memory };
      const history: unknown[] = [];
      for (let number = 1; number <= 13; number += 1) {
        history.push(...format.to(turn(number)));
        await format.compact(history, options);
      }
      // A paste too long for the window: clamped, it went changed, so the call that edits it
      // has no part of what was sent standing only for messages it kept.
      const paste = { ...EDITED[0]!, id: "paste" };
      paste.content = [{ type: "text", text: `Look: ${"const x = 1;\n".repeat(4_000)}` }];
      const pasted = await format.compact([...history, ...format.to([paste])], options);
      expect(serialized(pasted.messages).at(-1)).not.toEqual(serialized(format.to([paste])).at(-1));
      const edited = [...history, ...format.to(EDITED)];
      const fresh = await format.compact(edited, { contextLimit: 12_000 });
      const again = await format.compact(edited, options);
      expect(serialized(again.messages)).toEqual(serialized(fresh.messages));
    });

  it("the conversation before the edit is still remembered beside it", async () => {
    const memory = new CompactionMemory();
    const options = { contextLimit: 12_000, memory };
    const format = FORMATS["compactAnthropicMessages"]!;
    const history = historyOf(format, 13);
    await format.compact(history, options);
    const request = await format.compact([...history, ...format.to(turn(14))], options);
    // Another client shares that history and sends a request of its own after it.
    await format.compact([...history, ...format.to(EDITED)], options);
    const next = await format.compact(
      [...history, ...format.to(turn(14)), ...format.to(turn(15))],
      options,
    );
    expect(continues(serialized(next.messages), serialized(request.messages))).toBe(true);
  });
});

/** A summarizer whose answers wait for `answerAll`, refusing once its request's signal fires. */
function heldSummarizer() {
  const answers: (() => void)[] = [];
  const client: LlmClient = {
    complete: ({ signal }) =>
      new Promise((resolve, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        answers.push(() => resolve("Summary: the user asked to read modules."));
      }),
  };
  const answerAll = () => {
    for (const answer of answers.splice(0)) answer();
  };
  return { client, answerAll };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("CompactionMemory and a retry waiting while another caller aborts", () => {
  for (const [name, format] of Object.entries(FORMATS))
    for (const signal of [undefined, new AbortController().signal])
      it(`${name}: a retry ${signal ? "with a signal of its own" : "without a signal"} compacts`, async () => {
        const memory = new CompactionMemory();
        const { client, answerAll } = heldSummarizer();
        const options = { contextLimit: 12_000, memory, compactor: new LLMCompactor(client) };
        const history = historyOf(format, 12);
        const starter = new AbortController();
        const first = format.compact(history, { ...options, signal: starter.signal });
        const retry = format.compact(
          history,
          signal === undefined ? options : { ...options, signal },
        );
        const outcomes = [first, retry].map((call) =>
          call.then(
            (done: CompactedMessages<unknown>) => done,
            (error: unknown) => error,
          ),
        );
        await tick();
        starter.abort();
        for (let round = 0; round < 10; round += 1) {
          await tick();
          answerAll();
        }
        const [aborted, waited] = await Promise.all(outcomes);
        expect(CompactionError.isInstance(aborted) && aborted.code).toBe("aborted");
        // Another caller's abort is not the retry's: it runs its own compaction.
        const done = waited as CompactedMessages<unknown>;
        expect(done.compacted).toBe(true);
        expect(done.error).toBeUndefined();
      });
});
