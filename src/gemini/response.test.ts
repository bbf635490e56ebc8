import { ApiError, type CallableTool, GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GeminiApiServer, type GeminiReply } from "../../test/support/gemini-api-server.js";
import { ValidationError } from "../core/errors.js";
import { AgentSession } from "../session/agent-session.js";
import { withOverflowRecovery } from "../session/overflow-recovery.js";
import { MemoryStore } from "../store/memory-store.js";
import { openSession } from "../store/stored-session.js";
import { toGeminiContents } from "./contents-out.js";
import { isGeminiContextOverflow } from "./overflow.js";
import { appendGeminiResponse } from "./response.js";
import { usageFromGemini } from "./usage.js";

let server: GeminiApiServer;
let ai: GoogleGenAI;
let next: GeminiReply = { parts: [{ text: "ok" }] };
const MODEL = "gemini-3-flash-preview";

beforeAll(async () => {
  server = await GeminiApiServer.start(() => next);
  ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: server.url } });
});
afterAll(() => server.close());

describe("appendGeminiResponse", () => {
  it("takes a stream as the docs say: one response of every chunk's parts, the last chunk's usage", async () => {
    const signature = server.sign();
    const chunk = (parts: object[], usage?: object) => ({
      candidates: [{ content: { role: "model", parts } }],
      responseId: "resp-stream",
      ...(usage === undefined ? {} : { usageMetadata: usage }),
    });
    const chunks = [
      chunk([{ text: "Weighing it", thought: true }]),
      chunk([{ text: "The answer " }]),
      chunk([{ text: "is 42." }]),
      chunk([{ text: "", thoughtSignature: signature }], {
        promptTokenCount: 20,
        candidatesTokenCount: 6,
        totalTokenCount: 26,
      }),
    ];
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("What is the answer?");
    // A chunk at a time: the same response id twice.
    const oneByOne = new AgentSession({ contextLimit: 100_000 });
    oneByOne.addUserText("What is the answer?");
    appendGeminiResponse(oneByOne, chunks[0]!);
    expect(() => appendGeminiResponse(oneByOne, chunks[1]!)).toThrow(ValidationError);

    const parts = chunks.flatMap((each) => each.candidates[0]!.content.parts);
    const { message, usage } = appendGeminiResponse(session, {
      ...chunks.at(-1)!,
      candidates: [{ content: { role: "model", parts } }],
    });
    expect(message?.content).toHaveLength(4);
    expect(usage?.inputTokens).toBe(20);
    session.addUserText("And why?");
    const contents = toGeminiContents(session.messages);
    expect(contents[1]?.parts).toEqual(parts);
    await ai.models.generateContent({ model: MODEL, contents });
    expect(server.refusals).toEqual([]);
  });

  it("appends the candidate's parts as one assistant message, its calls to answer, and its usage", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Read a.ts");
    next = {
      parts: [
        { text: "Planning.", thought: true },
        { text: "Reading a.ts." },
        { functionCall: { name: "read", args: { path: "a.ts" } } },
      ],
      thoughtsTokens: 25,
    };
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: toGeminiContents(session.messages),
    });
    const { message, usage, toolUses } = appendGeminiResponse(session, response);
    expect(message?.content.map((block) => block.type)).toEqual(["opaque", "text", "tool_use"]);
    expect(message?.id).toBe(response.responseId);
    expect(toolUses).toEqual([message?.content[2]]);
    expect(toolUses[0]).toMatchObject({ name: "read", input: { path: "a.ts" } });
    const metadata = response.usageMetadata!;
    expect(usage).toEqual({
      inputTokens: metadata.promptTokenCount,
      outputTokens: (metadata.candidatesTokenCount ?? 0) + 25,
    });
    // The signed call goes back as it came, and the same response is not appended twice.
    expect(toGeminiContents(session.messages)[1]).toEqual(response.candidates?.[0]?.content);
    session.addToolResults([{ type: "tool_result", toolUseId: toolUses[0]!.id, content: "x" }]);
    expect(() => appendGeminiResponse(session, response)).toThrow(ValidationError);
  });

  it("appends nothing for a candidate without parts, and still records the usage", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("hi");
    const appended = appendGeminiResponse(session, {
      candidates: [{ content: { role: "model" } }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 0 },
    });
    expect(appended).toEqual({
      message: undefined,
      usage: { inputTokens: 4, outputTokens: 0 },
      toolUses: [],
    });
    expect(session.messages).toHaveLength(1);
    expect(() => appendGeminiResponse(session, { candidates: "x" } as never)).toThrow(
      /candidates: must be an array/,
    );
  });

  it("works with a StoredSession, returning a promise", async () => {
    const session = await openSession(new MemoryStore(), "gemini-1", { contextLimit: 100_000 });
    await session.addUserText("hi");
    next = { parts: [{ text: "hello" }] };
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: toGeminiContents(session.messages),
    });
    const appended = await appendGeminiResponse(session, response);
    expect(appended.message?.content).toMatchObject([{ type: "text", text: "hello" }]);
    expect(session.messages).toHaveLength(2);
  });
});

describe("appendGeminiResponse after the SDK's automatic function calling (review 54a #2)", () => {
  it("appends each call the SDK ran and its responses before the reply, and the next request is taken", async () => {
    const replies: GeminiReply[] = [
      { parts: [{ functionCall: { name: "read_file", args: { path: "config.json" } } }] },
      { parts: [{ text: "config.json sets port 8080." }] },
    ];
    const afcServer = await GeminiApiServer.start(
      () => replies.shift() ?? { parts: [{ text: "ok" }] },
    );
    try {
      const client = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: afcServer.url } });
      const readFile: CallableTool = {
        tool: async () => ({
          functionDeclarations: [{ name: "read_file", parametersJsonSchema: { type: "object" } }],
        }),
        callTool: async (calls) =>
          calls.map((call) => ({
            functionResponse: {
              ...(call.id === undefined ? {} : { id: call.id }),
              name: call.name ?? "",
              response: { output: '{"port": 8080, "secret_flag": true}' },
            },
          })),
      };
      const session = new AgentSession({ contextLimit: 100_000 });
      session.addUserText("What is in config.json?");
      const request = { model: MODEL, config: { tools: [readFile] } };
      const response = await client.models.generateContent({
        ...request,
        contents: toGeminiContents(session.messages),
      });
      const { message, toolUses } = appendGeminiResponse(session, response);
      expect(toolUses).toEqual([]);
      expect(message?.content).toMatchObject([
        { type: "text", text: "config.json sets port 8080." },
      ]);
      expect(session.messages.map((each) => each.content.map((block) => block.type))).toEqual([
        ["text"],
        ["tool_use"],
        ["tool_result"],
        ["text"],
      ]);
      expect(JSON.stringify(session.messages)).toContain("secret_flag");
      // The history sent next holds the call as it came, and is taken.
      session.addUserText("And the host?");
      replies.push({ parts: [{ text: "localhost." }] });
      const again = await client.models.generateContent({
        ...request,
        contents: toGeminiContents(session.messages),
      });
      expect(appendGeminiResponse(session, again).message).toBeDefined();
    } finally {
      await afcServer.close();
    }
  });

  it("refuses a history that does not continue the session's messages, appending nothing", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("What is in config.json?");
    const response = {
      candidates: [{ content: { role: "model", parts: [{ text: "done" }] } }],
      automaticFunctionCallingHistory: [
        { role: "user", parts: [{ text: "Another request" }] },
        { role: "model", parts: [{ functionCall: { name: "read_file", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "read_file", response: {} } }] },
      ],
    };
    expect(() => appendGeminiResponse(session, response)).toThrow(
      /automaticFunctionCallingHistory: does not continue the session's messages/,
    );
    expect(session.messages).toHaveLength(1);
  });
});

describe("usageFromGemini", () => {
  it("takes cache reads out of the prompt and counts thinking as output", () => {
    expect(
      usageFromGemini({
        promptTokenCount: 1000,
        cachedContentTokenCount: 800,
        candidatesTokenCount: 50,
        thoughtsTokenCount: 30,
      }),
    ).toEqual({ inputTokens: 200, cacheReadInputTokens: 800, outputTokens: 80 });
    expect(usageFromGemini({ promptTokenCount: 10 })).toEqual({ inputTokens: 10 });
    expect(usageFromGemini({ candidatesTokenCount: 3 })).toBeUndefined();
    expect(usageFromGemini(null)).toBeUndefined();
    expect(usageFromGemini(undefined)).toBeUndefined();
    expect(() => usageFromGemini({ promptTokenCount: -1 })).toThrow(/promptTokenCount/);
    expect(() => usageFromGemini({ promptTokenCount: 1, thoughtsTokenCount: 1.5 })).toThrow(
      /thoughtsTokenCount: must be a whole number/,
    );
  });
});

describe("isGeminiContextOverflow", () => {
  it("knows the API's 400 for a prompt above the window, and nothing else", async () => {
    server.contextWindow = 50;
    const refused = await ai.models
      .generateContent({ model: MODEL, contents: "x".repeat(400) })
      .catch((error: unknown) => error);
    server.contextWindow = undefined;
    expect(refused).toBeInstanceOf(ApiError);
    expect(isGeminiContextOverflow(refused)).toBe(true);
    const broken = await ai.models
      .generateContent({ model: MODEL, contents: [] })
      .catch((error: unknown) => error);
    expect(isGeminiContextOverflow(broken)).toBe(false);
    const tooMany = new ApiError({
      status: 429,
      message: "exceeds the maximum number of tokens allowed",
    });
    expect(isGeminiContextOverflow(tooMany)).toBe(false);
    expect(isGeminiContextOverflow("exceeds the maximum number of tokens allowed")).toBe(false);
  });

  it("lets withOverflowRecovery compact and send again when the window was configured too large", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    for (let turn = 0; turn < 6; turn += 1) {
      session.addUserText(`Read file ${turn}.`);
      session.addAssistant([
        { type: "tool_use", id: `call-${turn}`, name: "read", input: { turn } },
      ]);
      session.addToolResults([
        { type: "tool_result", toolUseId: `call-${turn}`, content: `line ${turn}\n`.repeat(300) },
      ]);
      session.addAssistant([{ type: "text", text: `File ${turn} read.` }]);
    }
    session.addUserText("And now?");
    server.contextWindow = 3_000;
    next = { parts: [{ text: "Done." }] };
    const sent: number[] = [];
    const response = await withOverflowRecovery(
      session,
      () => {
        sent.push(JSON.stringify(toGeminiContents(session.messages)).length);
        return ai.models.generateContent({
          model: MODEL,
          contents: toGeminiContents(session.messages),
        });
      },
      { isOverflow: isGeminiContextOverflow },
    );
    server.contextWindow = undefined;
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBeLessThan(sent[0]! / 2);
    expect(appendGeminiResponse(session, response).message?.content).toMatchObject([
      { text: "Done." },
    ]);
  });
});
