import { type Content, type FunctionDeclaration, GoogleGenAI } from "@google/genai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { answerRecall, compactGeminiContents } from "../../src/gemini/index.js";
import { MemoryArchive } from "../../src/session/archive.js";
import { STATELESS_SESSION_ID } from "../../src/session/stateless-options.js";
import { GeminiApiServer, roughTokens } from "../support/gemini-api-server.js";

/**
 * `compactGeminiContents`, the one-call stateless helper for `generateContent`: a caller that
 * keeps the whole `contents` itself compacts them before each request, through the real
 * `@google/genai` SDK against the loopback stand-in that refuses what the API refuses.
 */

const MODEL = "gemini-3-flash-preview";
const SMALL_WINDOW = 8_000;
const FILES = 44;
const TASK = `Read src/f1.ts through src/f${FILES}.ts, one at a time. Never touch package-lock.json.`;
const READ_FILE: FunctionDeclaration = {
  name: "read_file",
  description: "Returns a file of the repository.",
  parametersJsonSchema: { type: "object", properties: { path: { type: "string" } } },
};
const CONFIG = {
  systemInstruction: "You read the files the user names.",
  tools: [{ functionDeclarations: [READ_FILE] }],
};
/** What the request holds besides `contents` (the stand-in counts it against the window). */
const OVERHEAD = roughTokens(CONFIG);
/** A signature the API accepts unchecked, for histories written here rather than by the model. */
const DUMMY_SIGNATURE = "skip_thought_signature_validator";

/** A file of about 3,000 characters, its first line naming it. */
const file = (path: string) =>
  `// ${path}\n${Array.from({ length: 100 }, (_, line) => `export const v${line} = ${line};`).join("\n")}`;

/** The user content answering a model content's function calls (ids only where the calls have them). */
function responsesTo(model: Content): Content {
  const calls = (model.parts ?? []).flatMap((part) =>
    part.functionCall ? [part.functionCall] : [],
  );
  return {
    role: "user",
    parts: calls.map(({ id, name, args }) => ({
      functionResponse: {
        ...(id === undefined ? {} : { id }),
        name: name!,
        response: { output: file(String((args as { path: string }).path)) },
      },
    })),
  };
}

/** A tool loop already `calls` reads long, as a caller holds it. */
function history(calls: number, ids = false): Content[] {
  const contents: Content[] = [{ role: "user", parts: [{ text: TASK }] }];
  for (let index = 1; index <= calls; index += 1) {
    const path = `src/f${index}.ts`;
    const call = { ...(ids ? { id: `call-${index}` } : {}), name: "read_file", args: { path } };
    const model: Content = {
      role: "model",
      parts: [
        { text: `Reading ${path}.` },
        { functionCall: call, thoughtSignature: DUMMY_SIGNATURE },
      ],
    };
    contents.push(model, responsesTo(model));
  }
  return contents;
}

let server: GeminiApiServer;
let ai: GoogleGenAI;

beforeEach(async () => {
  let read = 0;
  // A model that reads the next file on each request, thinking first, then says it is done.
  server = await GeminiApiServer.start(
    () => {
      read += 1;
      if (read > FILES) return { parts: [{ text: `Read all ${FILES} files.` }] };
      const path = `src/f${read}.ts`;
      return {
        parts: [
          { text: `Next: ${path}.`, thought: true },
          { text: `Reading ${path}.` },
          { functionCall: { name: "read_file", args: { path } } },
        ],
      };
    },
    { contextWindow: SMALL_WINDOW },
  );
  ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: server.url } });
});

afterEach(() => server.close());

describe("compactGeminiContents through @google/genai", () => {
  it("keeps a 45-request stateless tool loop inside a small window: no request refused", async () => {
    let contents: Content[] = [{ role: "user", parts: [{ text: TASK }] }];
    let compactions = 0;
    for (let step = 0; step < 60; step += 1) {
      const { messages, compacted } = await compactGeminiContents(contents, {
        contextLimit: SMALL_WINDOW,
        overheadTokens: OVERHEAD,
      });
      if (compacted) compactions += 1;
      // A refusal ends the loop; the stand-in recorded why.
      const response = await ai.models
        .generateContent({ model: MODEL, contents: messages, config: CONFIG })
        .catch(() => undefined);
      const model = response?.candidates?.[0]?.content;
      if (model === undefined || !response?.functionCalls?.length) break;
      contents = [...messages, model, responsesTo(model)];
    }
    expect(server.refusals).toEqual([]);
    expect(server.requests).toHaveLength(FILES + 1);
    expect(compactions).toBeGreaterThan(0);
    // Uncompacted, the loop would have grown past 33,000 tokens; each request stayed inside.
    for (const { body } of server.requests) {
      const size = roughTokens(body["contents"]) + OVERHEAD;
      expect(size).toBeLessThan(SMALL_WINDOW);
      // Signatures went back (the stand-in checks the current turn's), the task was kept.
      expect(JSON.stringify(body["contents"])).toContain("Never touch package-lock.json");
    }
    const signed = server.requests.filter(({ body }) =>
      JSON.stringify(body["contents"]).includes("thoughtSignature"),
    );
    expect(signed.length).toBe(FILES);
  });

  it("gives back the very same array when there is nothing to do", async () => {
    const input = history(2);
    const before = structuredClone(input);
    const out = await compactGeminiContents(input, { contextLimit: 200_000 });
    expect(out.messages).toBe(input);
    expect(out.compacted).toBe(false);
    expect(out.contextUsed).toBeGreaterThan(0);
    expect(input).toEqual(before);
    // And that array is a request the API accepts.
    await ai.models.generateContent({ model: MODEL, contents: out.messages, config: CONFIG });
    expect(server.refusals).toEqual([]);
  });

  it("rejects bad input and bad options with a ValidationError naming the field, input untouched", async () => {
    const issuesOf = async (contents: unknown, options: Record<string, unknown>) => {
      const error = await compactGeminiContents(
        contents as Content[],
        options as { contextLimit: number },
      ).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).issues;
    };
    const good = history(3);
    const before = structuredClone(good);

    expect(await issuesOf({ role: "user", parts: [] }, { contextLimit: 8_000 })).toEqual([
      { path: [], message: expect.stringMatching(/array/) },
    ]);
    const wrong = [...structuredClone(good), { role: "user", parts: "not parts" }];
    const wrongBefore = structuredClone(wrong);
    const shape = await issuesOf(wrong, { contextLimit: 8_000 });
    expect(shape.some(({ path }) => path[0] === 7 && path.includes("parts"))).toBe(true);
    expect(wrong).toEqual(wrongBefore);

    for (const [option, value] of [
      ["contextUsed", Number.NaN],
      ["contextLimit", -1],
      ["maxBlockShare", 2],
      ["overheadTokens", "200"],
    ] as const) {
      const issues = await issuesOf(good, { contextLimit: 8_000, [option]: value });
      expect(issues.map(({ path }) => path)).toEqual([[option]]);
    }
    expect(good).toEqual(before);
  });

  it("keeps what compaction replaced in the archive: the handle in the output recalls the original", async () => {
    const archive = new MemoryArchive();
    const input = history(14);
    const before = structuredClone(input);
    const first = await compactGeminiContents(input, { contextLimit: SMALL_WINDOW, archive });
    expect(first.compacted).toBe(true);
    expect(input).toEqual(before);
    const text = JSON.stringify(first.messages);
    // The first file's text is no longer sent; a recall handle names where it is kept.
    expect(text).not.toContain(JSON.stringify(file("src/f1.ts")).slice(1, 400));
    const handles = [...text.matchAll(/\[recall (r\d+-[0-9a-f]{4})\]/g)].map((match) => match[1]!);
    expect(handles.length).toBeGreaterThan(0);
    for (const handle of handles) expect(archive.get(STATELESS_SESSION_ID, handle)).toBeDefined();

    // Gemini's recall answer, over the archive as a stateless server reads it.
    const reader = {
      contextLimit: 200_000,
      recall: async (handle: string) => {
        const record = archive.get(STATELESS_SESSION_ID, handle);
        if (record === undefined) throw new Error(`no record ${handle}`);
        return record;
      },
    };
    const answers = await Promise.all(
      handles.map((handle, index) => answerRecall(reader, { id: `r${index}`, input: { handle } })),
    );
    expect(answers.every((answer) => !("is_error" in answer && answer.is_error))).toBe(true);
    expect(answers.map((answer) => String(answer.content)).join("\n")).toContain(file("src/f1.ts"));

    // What it sends is a request the API accepts.
    await ai.models.generateContent({ model: MODEL, contents: first.messages, config: CONFIG });
    expect(server.refusals).toEqual([]);
  });

  it.each([
    ["with call ids", true],
    ["without call ids (as Gemini sends them)", false],
  ])("makes the same compaction again under the same handles, %s", async (_, ids) => {
    // The `archive` option's promise: handles are named after what they hold.
    const archive = new MemoryArchive();
    const first = await compactGeminiContents(history(14, ids), { contextLimit: 8_000, archive });
    const kept = archive.records(STATELESS_SESSION_ID).length;
    const again = await compactGeminiContents(history(14, ids), { contextLimit: 8_000, archive });
    expect(first.compacted).toBe(true);
    expect(again.messages).toEqual(first.messages);
    expect(archive.records(STATELESS_SESSION_ID)).toHaveLength(kept);
  });
});
