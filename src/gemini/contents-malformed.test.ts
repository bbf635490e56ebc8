// Media and code fields the Gemini API requires (`@google/genai`'s `Blob`, `FileData`,
// `ExecutableCode`, `FunctionResponseBlob`, `FunctionResponseFileData`: "Required") are refused
// by every entry that reads contents when they are not strings, each naming its path, as the
// adapter's other checks do (review 54a, finding 4); what the API takes still reads, and comes
// back as it came.
import type { Content } from "@google/genai";
import { describe, expect, it } from "vitest";
import { refusalIssues } from "../../test/support/refusals.js";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import { compactGeminiContents } from "./compact-contents.js";
import { fromGeminiContents } from "./contents-in.js";
import { toGeminiContents } from "./contents-out.js";
import { quickPartBlock } from "./parts-quick.js";

const USER = { role: "user", parts: [{ text: "run it" }] };
const user = (part: unknown) => ({ role: "user", parts: [part, { text: "see" }] });
const model = (part: unknown) => ({ role: "model", parts: [part] });
const call = model({ functionCall: { id: "c1", name: "shot", args: {} } });
const answerWith = (part: unknown) => ({
  role: "user",
  parts: [
    {
      functionResponse: { id: "c1", name: "shot", response: { output: "taken" }, parts: [part] },
    },
  ],
});
const at = (...path: (string | number)[]) => path;

/** Contents the API refuses, and the issue each is refused with. */
const MALFORMED: [string, unknown[], ValidationIssue][] = [
  [
    "inlineData without data",
    [user({ inlineData: { mimeType: "image/png" } })],
    { path: at(0, "parts", 0, "inlineData", "data"), message: "must be a string" },
  ],
  [
    "inlineData whose data is a number",
    [user({ inlineData: { mimeType: "image/png", data: 5 } })],
    { path: at(0, "parts", 0, "inlineData", "data"), message: "must be a string" },
  ],
  [
    "inlineData without a mimeType",
    [user({ inlineData: { data: "AAAA" } })],
    { path: at(0, "parts", 0, "inlineData", "mimeType"), message: "must be a string" },
  ],
  [
    "inlineData of a PDF whose mimeType is null",
    [user({ inlineData: { data: "AAAA", mimeType: null } })],
    { path: at(0, "parts", 0, "inlineData", "mimeType"), message: "must be a string" },
  ],
  [
    "fileData without a fileUri",
    [user({ fileData: { mimeType: "application/pdf" } })],
    { path: at(0, "parts", 0, "fileData", "fileUri"), message: "must be a string" },
  ],
  [
    "fileData whose fileUri is a number",
    [user({ fileData: { fileUri: 5, mimeType: "image/png" } })],
    { path: at(0, "parts", 0, "fileData", "fileUri"), message: "must be a string" },
  ],
  [
    "fileData whose mimeType is a number",
    [user({ fileData: { fileUri: "gs://b/a.pdf", mimeType: 5 } })],
    { path: at(0, "parts", 0, "fileData", "mimeType"), message: "must be a string" },
  ],
  [
    "executableCode whose code is a number",
    [USER, model({ executableCode: { language: "PYTHON", code: 5 } })],
    { path: at(1, "parts", 0, "executableCode", "code"), message: "must be a string" },
  ],
  [
    "executableCode without code",
    [USER, model({ executableCode: { language: "PYTHON" } })],
    { path: at(1, "parts", 0, "executableCode", "code"), message: "must be a string" },
  ],
  [
    "a function response's inlineData without data",
    [USER, call, answerWith({ inlineData: { mimeType: "image/png" } })],
    {
      path: at(2, "parts", 0, "functionResponse", "parts", 0, "inlineData", "data"),
      message: "must be a string",
    },
  ],
  [
    "a function response's inlineData that is no object",
    [USER, call, answerWith({ inlineData: "AAAA" })],
    {
      path: at(2, "parts", 0, "functionResponse", "parts", 0, "inlineData"),
      message: "must be an object",
    },
  ],
  [
    "a function response's fileData without a fileUri",
    [USER, call, answerWith({ fileData: { mimeType: "image/png" } })],
    {
      path: at(2, "parts", 0, "functionResponse", "parts", 0, "fileData", "fileUri"),
      message: "must be a string",
    },
  ],
];

describe("Gemini contents of media or code fields the API refuses", () => {
  it.each(MALFORMED)("fromGeminiContents refuses %s, naming the path", (_, contents, issue) => {
    expect(refusalIssues(() => fromGeminiContents(contents))).toEqual([issue]);
  });

  it.each(MALFORMED)(
    "compactGeminiContents refuses %s, naming the path",
    async (_, contents, issue) => {
      const compacted = compactGeminiContents(contents as Content[], { contextLimit: 100_000 });
      await expect(compacted).rejects.toBeInstanceOf(ValidationError);
      await expect(compacted).rejects.toMatchObject({ issues: [issue] });
    },
  );

  it("are never taken by the quick reading (it leaves them to the full one)", () => {
    for (const [, contents] of MALFORMED)
      for (const content of contents as Content[])
        for (const part of content.parts ?? [])
          if (!("text" in part) && !("functionCall" in part))
            expect(quickPartBlock(part as Record<string, unknown>)).toBeUndefined();
  });
});

describe("Gemini media and code the API takes", () => {
  const VALID: [string, unknown[]][] = [
    [
      "inline images and documents, a file by URI with and without a mimeType",
      [
        {
          role: "user",
          parts: [
            { inlineData: { mimeType: "image/png", data: "AAAA" } },
            { inlineData: { mimeType: "application/pdf", data: "", displayName: "a.pdf" } },
            { fileData: { fileUri: "gs://b/a.png", mimeType: "image/png" } },
            { fileData: { fileUri: "https://www.youtube.com/watch?v=x" } },
            { text: "see" },
          ],
        },
      ],
    ],
    [
      "code execution",
      [
        USER,
        model({ executableCode: { language: "PYTHON", code: "print(1)" } }),
        model({ codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } }),
      ],
    ],
    [
      "a function response's media",
      [
        USER,
        call,
        answerWith({ inlineData: { mimeType: "image/png", data: "AAAA" } }),
        call,
        answerWith({ fileData: { fileUri: "gs://b/a.png", mimeType: "image/png" } }),
      ],
    ],
  ];

  it.each(VALID)("reads %s, giving them back as they came", (_, contents) => {
    expect(toGeminiContents(fromGeminiContents(contents))).toEqual(contents);
  });

  it.each(VALID)("compactGeminiContents takes %s as they are", async (_, contents) => {
    const input = contents as Content[];
    const { messages } = await compactGeminiContents(input, { contextLimit: 100_000 });
    expect(messages).toBe(input);
  });
});
