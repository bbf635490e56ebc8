import type { Content, Language } from "@google/genai";
import { describe, expect, it } from "vitest";
import { geminiContentsToOurs } from "../../src/gemini/contents-in.js";
import { writeGeminiContents } from "../../src/gemini/contents-out.js";
import { compactGeminiContents } from "../../src/gemini/index.js";
import { SUMMARY_PREFIX } from "../../src/index.js";
import {
  expectHandedBack,
  expectOriginsWriteTheSame,
  longToolLoop,
} from "../support/item-origins-check.js";

/**
 * A one-call helper hands back the caller's own contents for the messages a compaction left as
 * they were: the same the writing would make, without making them.
 */

const call = (name: string, id?: string) => ({
  functionCall: { ...(id === undefined ? {} : { id }), name, args: { path: "a.ts" } },
});
const response = (name: string, id?: string, output: unknown = `output of ${name}`) => ({
  functionResponse: { ...(id === undefined ? {} : { id }), name, response: { output } },
});

/** Conversations of every shape the reader takes: its quick parts and the full reading's others. */
const CONVERSATIONS: Content[][] = [
  [
    { role: "user", parts: [{ text: "Fix the test." }] },
    { role: "model", parts: [{ text: "Reading." }, call("read", "c1")] },
    { role: "user", parts: [response("read", "c1")] },
    { role: "model", parts: [{ text: "Done." }] },
  ],
  [
    // Calls without ids, thoughts with signatures, media, a content without a role.
    { parts: [{ text: "Look." }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] },
    {
      role: "model",
      parts: [
        { text: "Plan.", thought: true, thoughtSignature: "c2ln" },
        { ...call("read"), thoughtSignature: "c2ln" },
        call("grep"),
      ],
    },
    { role: "user", parts: [response("read"), response("grep", undefined, { lines: [1, 2] })] },
    {
      role: "model",
      parts: [{ executableCode: { language: "PYTHON" as Language, code: "print(1)" } }],
    },
    { role: "model", parts: [{ text: "Same role again." }] },
    { role: "user", parts: [{ text: "Go on." }], ...({ extra: { kept: true } } as object) },
    { role: "user", parts: [{ text: "And again." }] },
    { role: "model", parts: [{ fileData: { mimeType: "text/plain", fileUri: "gs://b/a.txt" } }] },
  ],
  [
    // A summary leading the first content (read as two).
    { role: "user", parts: [{ text: `${SUMMARY_PREFIX}\nEarlier work.\n\nContinue the task.` }] },
    { role: "model", parts: [call("read", "c1")] },
    { role: "user", parts: [response("read", "c1", "text")] },
    { role: "model", parts: [{ text: "Read." }] },
  ],
  [
    // Ids that are none (written without one), and a response naming a call without one by
    // the id that call was given.
    { role: "user", parts: [{ text: "Go." }] },
    { role: "model", parts: [{ functionCall: { id: "", name: "read", args: {} } }] },
    { role: "user", parts: [response("read", "")] },
    { role: "model", parts: [{ functionCall: { name: "grep", args: {} } }] },
    // The grep call came without an id: it was given `gen-1`, which its response names.
    { role: "user", parts: [response("grep", "gen-1")] },
    { role: "model", parts: [{ functionCall: { name: "ls", args: {} } }] },
    // Read in full (its output is no string), it names the id `ls` was given too.
    { role: "user", parts: [response("ls", "gen-2", { files: [] })] },
    { role: "model", parts: [{ text: "Done." }] },
  ],
];

describe("compactGeminiContents' unchanged contents", () => {
  it("writes the caller's contents where it would write the same ones", () => {
    const reused = expectOriginsWriteTheSame(
      {
        from: (items, origins) => {
          let next = 0;
          return geminiContentsToOurs(
            items,
            { idPrefix: "", generateId: () => `gen-${next++}` },
            origins,
          );
        },
        to: writeGeminiContents,
      },
      CONVERSATIONS,
    );
    expect(reused).toBeGreaterThan(15);
  });

  it("hands back the caller's contents a compaction left unchanged", async () => {
    const history = longToolLoop<Content>(
      { role: "user", parts: [{ text: "Read every file." }] },
      (n) => [
        { role: "model", parts: [{ text: `Step ${n}.` }, call("read", `c${n}`)] },
        { role: "user", parts: [response("read", `c${n}`, "x".repeat(4000))] },
      ],
      (turn) => [
        { role: "model", parts: [{ text: `Turn ${turn} done.` }] },
        { role: "user", parts: [{ text: `Request ${turn + 1}.` }] },
      ],
    );
    await expectHandedBack(history, compactGeminiContents, 40);
  });
});
