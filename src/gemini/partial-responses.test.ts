import { type Content, GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GeminiApiServer } from "../../test/support/gemini-api-server.js";
import { INTERRUPTED_NOTICE } from "../core/interrupted-calls.js";
import { compactGeminiContents } from "./compact-contents.js";
import { withPartialResponsesClosed } from "./partial-responses.js";

// A last content answering only some of the model's parallel calls (a harness whose second tool
// crashed, then the request) went through compactGeminiContents as it came, and Gemini refuses
// it: the responses to a turn's calls are the one content after it, as many as the calls
// (review 58e #3). Calls answered so anywhere else were closed by an error response already;
// the last content's are now too.

const ask: Content = { role: "user", parts: [{ text: "Read a.ts and b.ts." }] };
const call = (name: string, id?: string) => ({
  functionCall: { ...(id === undefined ? {} : { id }), name, args: { path: `${name}.ts` } },
});
const response = (name: string, id?: string) => ({
  functionResponse: { ...(id === undefined ? {} : { id }), name, response: { output: "x" } },
});
const closing = (name: string, id?: string) => ({
  functionResponse: {
    ...(id === undefined ? {} : { id }),
    name,
    response: { error: INTERRUPTED_NOTICE },
  },
});

describe("compactGeminiContents with the last content answering some of the calls", () => {
  let server: GeminiApiServer;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    server = await GeminiApiServer.start(() => ({ parts: [{ text: "Read what I could." }] }));
    ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: server.url } });
  });
  afterAll(() => server.close());

  const send = (contents: Content[]) =>
    ai.models.generateContent({ model: "gemini-2.5-flash", contents });

  it("closes each call left unanswered, after the responses, and the API takes the request", async () => {
    const cases: [Content[], Content["parts"]][] = [
      [
        [
          ask,
          { role: "model", parts: [call("a", "c1"), call("b", "c2")] },
          { role: "user", parts: [response("a", "c1")] },
        ],
        [response("a", "c1"), closing("b", "c2")],
      ],
      // No ids: a response answers the first open call of its name, as Gemini pairs them.
      [
        [
          ask,
          { role: "model", parts: [call("read"), call("read"), call("grep")] },
          { role: "user", parts: [response("read")] },
        ],
        [response("read"), closing("read"), closing("grep")],
      ],
    ];
    for (const [contents, parts] of cases) {
      await expect(send(contents)).rejects.toThrow(/function response parts/);
      const { messages, compacted } = await compactGeminiContents(contents, {
        contextLimit: 1_000_000,
      });
      expect(compacted).toBe(true);
      expect(messages.at(-1)).toEqual({ role: "user", parts });
      expect(messages.slice(0, -1)).toEqual(contents.slice(0, -1));
      const reply = await send(messages);
      expect(reply.text).toBe("Read what I could.");
    }
  });

  it("leaves contents whose calls are all answered, or still awaited, as they came", async () => {
    const model: Content = { role: "model", parts: [call("a", "c1"), call("b", "c2")] };
    for (const contents of [
      [ask, model, { role: "user", parts: [response("b", "c2"), response("a", "c1")] }],
      [ask, model],
    ]) {
      const { messages, compacted } = await compactGeminiContents(contents, {
        contextLimit: 1_000_000,
      });
      expect(compacted).toBe(false);
      expect(messages).toBe(contents);
    }
  });

  it("reads a hostile turn of many calls of one name in time linear in its parts", () => {
    const calls = Array.from({ length: 50_000 }, () => call("read"));
    const answers = Array.from({ length: 49_999 }, () => response("read"));
    const contents: Content[] = [
      ask,
      { role: "model", parts: calls },
      { role: "user", parts: answers },
    ];
    const started = performance.now();
    const closed = withPartialResponsesClosed(contents);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(closed.at(-1)?.parts).toHaveLength(50_000);
    // Input no conversion has checked yet: what is no content is left to it.
    const odd = [ask, "model", { parts: "x" }] as unknown as Content[];
    expect(withPartialResponsesClosed(odd)).toBe(odd);
  });
});
