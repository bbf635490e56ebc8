// A function response clamped to its share stays within it, so compactGeminiContents on its own
// output at the same window changes nothing (review 55h, finding 2: fuzz seed 12345). Id `c0`
// answered a call of `sh` and a later one of `grep` with the same output: the clamp named both
// texts' handle alike, their records differ (the function's name), so the second moved to a
// variant as it was kept, and the variant's number had more digits than the handle the marker
// was sized with. The text came out over its share, and a second pass cut it again around the
// first recall mark. Content handles now all have 16 digits: a variant keeps the length.
import type { Content } from "@google/genai";
import { describe, expect, it } from "vitest";
import { tokensToChars } from "../core/tokens.js";
import { MemoryArchive } from "../session/archive.js";
import { DEFAULT_SESSION_OPTIONS } from "../session/options.js";
import { compactGeminiContents } from "./compact-contents.js";
import { answerRecall } from "./tools.js";

/** The most characters a text keeps after a clamp at `window`. */
const shareOf = (window: number) =>
  tokensToChars(Math.floor(DEFAULT_SESSION_OPTIONS.maxBlockShare * window));

/** The `output` of each function response in `contents`. */
const outputs = (contents: readonly Content[]) =>
  contents.flatMap((content) =>
    (content.parts ?? []).flatMap((part) => {
      const output = part.functionResponse?.response?.["output"];
      return typeof output === "string" ? [output] : [];
    }),
  );

/** A tool loop: each turn's calls (`c0`, `c1`, … again at every turn), then their responses. */
function loop(
  turns: { name: string; output: string }[][],
  trailing: readonly (string | undefined)[] = [],
): Content[] {
  const contents: Content[] = [{ role: "user", parts: [{ text: "task" }] }];
  turns.forEach((calls, turn) => {
    contents.push({
      role: "model",
      parts: calls.map(({ name }, index) => ({
        functionCall: { id: `c${index}`, name, args: {} },
        ...(index === 0 ? { thoughtSignature: "U0E=" } : {}),
      })),
    });
    contents.push({
      role: "user",
      parts: [
        ...calls.map(({ name, output }, index) => ({
          functionResponse: { id: `c${index}`, name, response: { output } },
        })),
        ...(trailing[turn] === undefined ? [] : [{ text: trailing[turn] }]),
      ],
    });
  });
  contents.push({ role: "model", parts: [{ text: "done" }] });
  return contents;
}

/** A small deterministic generator (mulberry32): the same histories at every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), state | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

describe("compactGeminiContents: a clamped function response within its share", () => {
  it("one id answering two functions with the same long output: clamped once, at most its share", async () => {
    const window = 5_092;
    const output = "o".repeat(12_000);
    const contents = loop([[{ name: "sh", output }], [{ name: "grep", output }]]);
    const archive = new MemoryArchive();
    const first = await compactGeminiContents(contents, { contextLimit: window, archive });
    const clamped = outputs(first.messages);
    expect(clamped).toHaveLength(2);
    for (const text of clamped) {
      expect(text).toContain("characters cut to fit the context window");
      expect(text.length).toBeLessThanOrEqual(shareOf(window));
    }
    const again = await compactGeminiContents(first.messages, { contextLimit: window, archive });
    expect(again.compacted).toBe(false);
    expect(again.messages).toEqual(first.messages);
    for (const text of clamped) {
      const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(text)![1]!;
      const recalled = await answerRecall({ archive }, { id: "x", input: { handle } });
      expect(JSON.stringify(recalled)).not.toContain("is_error");
      expect(JSON.stringify(recalled)).toContain(output);
    }
  });

  it("random tool loops with reused ids: the output compacted again at the same window is the same", async () => {
    const names = ["sh", "read", "grep"];
    const sizes = [40, 3_000, 12_000];
    for (let seed = 1; seed <= 60; seed += 1) {
      const next = random(seed);
      const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
      const turns = Array.from({ length: 3 + Math.floor(next() * 8) }, () =>
        Array.from({ length: 1 + Math.floor(next() * 3) }, () => ({
          name: pick(names),
          output: pick(["o", "p"]).repeat(pick(sizes)),
        })),
      );
      const trailing = turns.map(() => (next() < 0.3 ? "user words" : undefined));
      const contents = loop(turns, trailing);
      const window = 3_000 + Math.floor(next() * 9_000);
      const archive = new MemoryArchive();
      const first = await compactGeminiContents(contents, { contextLimit: window, archive });
      for (const text of outputs(first.messages))
        expect(text.length, `seed ${seed}`).toBeLessThanOrEqual(shareOf(window));
      const again = await compactGeminiContents(first.messages, { contextLimit: window, archive });
      expect(again.compacted, `seed ${seed}`).toBe(false);
      expect(again.messages).toEqual(first.messages);
    }
  });
});
