import { describe, expect, it } from "vitest";
import { CompactionError, LLMCompactor, type LlmClient } from "../../src/index.js";
import type { CompactedMessages } from "../../src/session/stateless-options.js";
import { CompactionMemory } from "../../src/store/index.js";
import { continues, FORMATS, historyOf, serialized, turn } from "./memory-formats.js";

// Review 58b: what a `CompactionMemory` goes on from when the caller's messages are read
// through getters, and what a call waiting for another's compaction gets when that other
// caller aborts.

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
