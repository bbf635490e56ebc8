import type { Content } from "@google/genai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { fromGeminiContents } from "./contents-in.js";
import { toGeminiContents } from "./contents-out.js";

/** Parts read quickly, by the full reading, or carried whole. */
const part = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 4 }) }),
  fc.record({ text: fc.string({ maxLength: 4 }), thoughtSignature: fc.constant("S") }),
  fc.record({ text: fc.constant("t"), thought: fc.constant(true) }),
  fc.record({
    functionCall: fc.record({
      id: fc.constantFrom("c1", "c2"),
      name: fc.constantFrom("read", "grep"),
      args: fc.dictionary(fc.constantFrom("path", "n"), fc.string({ maxLength: 3 })),
    }),
  }),
  fc.record({
    functionResponse: fc.record({
      id: fc.constantFrom("c1", "c2"),
      name: fc.constantFrom("read", "grep"),
      response: fc.oneof(
        fc.record({ output: fc.string({ maxLength: 4 }) }),
        fc.record({ error: fc.string({ maxLength: 4 }) }),
        fc.record({ lines: fc.integer() }),
      ),
    }),
  }),
);

/** Contents as the API sends them: a role or none, fields of their own, runs of one role. */
const content = fc
  .record(
    {
      metadata: fc.dictionary(fc.constantFrom("a", "__proto__"), fc.integer()),
      role: fc.constantFrom("user", "model"),
      parts: fc.array(part, { minLength: 1, maxLength: 3 }),
    },
    { requiredKeys: ["parts"] },
  )
  .map((value) => value as Content);

describe("fromGeminiContents: each content's marks, made only when it has some", () => {
  it("reads contents that toGeminiContents gives back as they were", () => {
    fc.assert(
      fc.property(fc.array(content, { maxLength: 8 }), (contents) => {
        const messages = fromGeminiContents(contents);
        expect(toGeminiContents(messages)).toEqual(contents);
      }),
      { seed: 3_100_431, numRuns: 1500 },
    );
  });

  it("names a content field JSON cannot hold, beside the content's own path", () => {
    const contents = [{ role: "user", parts: [{ text: "hi" }], bad: Number.NaN }];
    expect(() => fromGeminiContents(contents)).toThrow(ValidationError);
    try {
      fromGeminiContents(contents);
    } catch (caught) {
      expect((caught as ValidationError).issues.map((issue) => issue.path)).toEqual([[0, "bad"]]);
    }
  });
});

describe("fromGeminiContents: parts of the wrong shape", () => {
  const issuesOf = (parts: unknown[]) => {
    try {
      fromGeminiContents([{ role: "user", parts }] as Content[]);
    } catch (caught) {
      expect(caught).toBeInstanceOf(ValidationError);
      return (caught as ValidationError).issues.map(({ path, message }) => ({ path, message }));
    }
    return [];
  };

  it("are refused, each naming its field (the API refuses them too)", () => {
    expect(issuesOf([{ text: 42 }, { functionCall: null }, {}])).toEqual([
      { path: [0, "parts", 0, "text"], message: "must be a string" },
      { path: [0, "parts", 1, "functionCall"], message: "must be an object" },
      {
        path: [0, "parts", 2],
        message: "must hold a field (text, functionCall, inlineData, ...)",
      },
    ]);
    expect(issuesOf([{ text: "a", thought: "yes", thoughtSignature: 3 }])).toEqual([
      { path: [0, "parts", 0, "thoughtSignature"], message: "must be a string" },
      { path: [0, "parts", 0, "thought"], message: "must be a boolean" },
    ]);
    expect(issuesOf([{ inlineData: "x" }, { functionResponse: [] }])).toEqual([
      { path: [0, "parts", 0, "inlineData"], message: "must be an object" },
      { path: [0, "parts", 1, "functionResponse"], message: "must be an object" },
    ]);
  });

  it("of a kind it does not know are carried whole", () => {
    const parts = [{ toolCall: { id: "1", toolType: "GOOGLE_SEARCH_WEB" } }, { newKind: 1 }];
    expect(issuesOf(parts)).toEqual([]);
    const messages = fromGeminiContents([{ role: "model", parts }] as Content[]);
    expect(toGeminiContents(messages)).toEqual([{ role: "model", parts }]);
  });
});

describe("fromGeminiContents: call ids", () => {
  it("refuses an id that is not a string, naming it", () => {
    const parts = [
      { functionCall: { id: 42, name: "read", args: {} } },
      { functionResponse: { id: { a: 1 }, name: "read", response: { output: "x" } } },
    ];
    expect(() => fromGeminiContents([{ role: "model", parts }] as unknown as Content[])).toThrow(
      /\[0\]\.parts\[0\]\.functionCall\.id: must be a string.*\[0\]\.parts\[1\]\.functionResponse\.id: must be a string/,
    );
  });
});

describe("fromGeminiContents: empty call ids", () => {
  it("come back as they were", () => {
    const contents = [
      { role: "model", parts: [{ functionCall: { id: "", name: "read", args: {} } }] },
      {
        role: "user",
        parts: [{ functionResponse: { id: null, name: "read", response: { output: "x" } } }],
      },
    ] as unknown as Content[];
    expect(toGeminiContents(fromGeminiContents(contents))).toEqual(contents);
  });
});

describe("fromGeminiContents: the part's one data field", () => {
  it("refuses a part holding two (the API's data is one of them), takes a signature alone", () => {
    const two = [{ role: "model", parts: [{ text: "calling", functionCall: { name: "f" } }] }];
    expect(() => fromGeminiContents(two as Content[])).toThrow(
      "[0].parts[0]: must hold one data field, not text and functionCall",
    );
    // A stream's last chunk may hold a signature alone: carried whole.
    const signed = [{ role: "model", parts: [{ text: "done" }, { thoughtSignature: "S" }] }];
    expect(toGeminiContents(fromGeminiContents(signed as Content[]))).toEqual(signed);
  });
});

describe("fromGeminiContents: a function response's parts", () => {
  it("refuses parts that are not an array of part objects, naming each", () => {
    const contents = (parts: unknown) => [
      { role: "model", parts: [{ functionCall: { id: "c", name: "f", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { id: "c", name: "f", response: {}, parts } }] },
    ];
    expect(() => fromGeminiContents(contents(["junk", null]) as Content[])).toThrow(
      "[1].parts[0].functionResponse.parts[0]: must be a part object; [1].parts[0].functionResponse.parts[1]: must be a part object",
    );
    expect(() => fromGeminiContents(contents("junk") as Content[])).toThrow(
      "[1].parts[0].functionResponse.parts: must be an array",
    );
  });
});
