import { ApiError, GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GeminiApiServer,
  geminiContentsProblem,
  type IssuedSignatures,
  type WireContent,
} from "./gemini-api-server.js";

const issued = (): IssuedSignatures =>
  new Map([
    ["SIG-READ", { functionName: "read" }],
    ["SIG-TEXT", {}],
  ]);
const user = { role: "user", parts: [{ text: "go" }] };
const call = (name = "read", signature: string | null = "SIG-READ") => ({
  role: "model",
  parts: [
    {
      functionCall: { name, args: { path: "a.ts" } },
      ...(signature ? { thoughtSignature: signature } : {}),
    },
  ],
});
const answer = (name = "read") => ({
  role: "user",
  parts: [{ functionResponse: { name, response: { output: "ok" } } }],
});
const text = (value: string) => ({ role: "model", parts: [{ text: value }] });
const problem = (contents: WireContent[], model = "gemini-3-flash-preview") =>
  geminiContentsProblem(contents, { model, issued: issued() });

describe("the loopback Gemini API's contents rules", () => {
  it("accepts a signed tool loop and a new turn after it", () => {
    expect(problem([user, call(), answer()])).toBeUndefined();
    expect(problem([user, call(), answer(), text("done"), user])).toBeUndefined();
  });

  it("1-2: refuses empty contents, unknown roles, empty parts and parts of two kinds", () => {
    expect(problem([])).toMatch(/contents is not specified/);
    expect(problem([{ role: "assistant", parts: [{ text: "x" }] }])).toBe(
      "Please use a valid role: user, model.",
    );
    expect(problem([{ role: "user", parts: [] }])).toMatch(/contents\.parts must not be empty/);
    expect(problem([{ role: "user", parts: [{ text: "a", inlineData: { data: "" } }] }])).toMatch(
      /only one oneof field/,
    );
    expect(problem([{ role: "user", parts: [{ thought: true }] }])).toMatch(/required oneof field/);
  });

  it("8: refuses a Blob without string data and mimeType, and a FileData without a string fileUri", () => {
    const media = (part: Record<string, unknown>) => [{ role: "user", parts: [part] }];
    expect(problem(media({ inlineData: { data: "iVBORw0KGgo=", mimeType: "image/png" } }))).toBe(
      undefined,
    );
    expect(problem(media({ fileData: { fileUri: "https://x/y.pdf" } }))).toBeUndefined();
    expect(problem(media({ inlineData: { mimeType: "image/png" } }))).toBe(
      "* GenerateContentRequest.contents[0].parts[0].inline_data.data: required field is not set",
    );
    expect(problem(media({ inlineData: { data: "AAAA" } }))).toBe(
      "* GenerateContentRequest.contents[0].parts[0].inline_data.mime_type: required field is not set",
    );
    expect(problem(media({ inlineData: { data: 5, mimeType: "image/png" } }))).toBe(
      "Invalid value at 'contents[0].parts[0].inline_data.data' (TYPE_BYTES), 5",
    );
    expect(problem(media({ inlineData: { data: "AAAA", mimeType: 5 } }))).toBe(
      "Invalid value at 'contents[0].parts[0].inline_data.mime_type' (TYPE_STRING), 5",
    );
    expect(problem(media({ inlineData: "AAAA" }))).toBe(
      "Invalid value at 'contents[0].parts[0].inline_data' (type.googleapis.com/google.ai.generativelanguage.v1beta.Blob), \"AAAA\"",
    );
    expect(problem(media({ fileData: { mimeType: "application/pdf" } }))).toBe(
      "* GenerateContentRequest.contents[0].parts[0].file_data.file_uri: required field is not set",
    );
    expect(problem(media({ fileData: { fileUri: 5 } }))).toBe(
      "Invalid value at 'contents[0].parts[0].file_data.file_uri' (TYPE_STRING), 5",
    );
  });

  it("3-5: alternates user and model; answers each call turn in the next turn, one response each", () => {
    expect(problem([user, user])).toMatch(/alternate between user and model/);
    expect(problem([call(), answer()])).toMatch(
      /function call turn comes immediately after a user turn/,
    );
    expect(problem([user, text("hm"), answer()])).toMatch(
      /function response turn comes immediately after a function call turn/,
    );
    expect(problem([user, call(), user])).toMatch(/number of function response parts is equal/);
    expect(problem([user, call()])).toMatch(/number of function response parts is equal/);
    expect(problem([user, call(), answer("write")])).toMatch(/does not match any function call/);
  });

  it("6: on Gemini 3 and later, the current turn's calls come back signed; older turns and 2.5 are not checked", () => {
    expect(problem([user, call("read", null), answer()])).toMatch(
      /^Function call is missing a thought_signature in functionCall parts\..*`default_api:read` , position 1\./,
    );
    expect(problem([user, call("read", null), answer()], "gemini-2.5-flash")).toBeUndefined();
    // A new user request starts a new turn: the calls before it are not checked any more.
    expect(problem([user, call("read", null), answer(), text("ok"), user])).toBeUndefined();
    // A dummy signature skips the check, as documented.
    expect(
      problem([user, call("read", "skip_thought_signature_validator"), answer()]),
    ).toBeUndefined();
  });

  it("7: refuses a signature it did not issue, or one moved to another part", () => {
    expect(problem([user, call("read", "SIG-READ "), answer()])).toBe(
      "Corrupted thought signature.",
    );
    expect(problem([user, call("write", "SIG-READ"), answer("write")])).toBe(
      "Corrupted thought signature.",
    );
    expect(
      problem([
        user,
        { role: "model", parts: [{ text: "hi", thoughtSignature: "SIG-TEXT" }] },
        user,
      ]),
    ).toBeUndefined();
  });
});

describe("GeminiApiServer through @google/genai", () => {
  let server: GeminiApiServer;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    server = await GeminiApiServer.start(() => ({ parts: [{ text: "hello" }] }), {
      contextWindow: 400,
      minCacheTokens: 10,
    });
    ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: server.url } });
  });
  afterAll(() => server.close());

  it("answers generateContent, signs the reply on Gemini 3, and counts the implicit cache", async () => {
    const contents = [{ role: "user", parts: [{ text: "a question long enough to be cached" }] }];
    const first = await ai.models.generateContent({ model: "gemini-3-flash-preview", contents });
    const signature = first.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature;
    expect(server.issued.has(String(signature))).toBe(true);
    expect(first.usageMetadata?.cachedContentTokenCount).toBeUndefined();
    const again = [
      ...contents,
      first.candidates![0]!.content!,
      { role: "user", parts: [{ text: "more" }] },
    ];
    const second = await ai.models.generateContent({
      model: "gemini-3-flash-preview",
      contents: again,
    });
    expect(second.usageMetadata?.cachedContentTokenCount).toBeGreaterThan(0);
    expect(server.requests.at(-1)?.model).toBe("gemini-3-flash-preview");
  });

  it("refuses with the SDK's ApiError 400: a broken rule, and a prompt above the window", async () => {
    const broken = ai.models.generateContent({
      model: "gemini-3-flash-preview",
      contents: [user, user],
    });
    await expect(broken).rejects.toBeInstanceOf(ApiError);
    await expect(broken).rejects.toMatchObject({ status: 400 });
    const long = ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "x".repeat(4000),
    });
    await expect(long).rejects.toThrow(/exceeds the maximum number of tokens allowed \(400\)/);
    expect(server.refusals).toHaveLength(2);
  });
});
