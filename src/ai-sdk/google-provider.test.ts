import { createGoogleGenerativeAI } from "@ai-sdk/google";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { fileText, read } from "../../test/support/ai-sdk-providers.js";
import {
  GeminiApiServer,
  type GeminiScript,
  type WireContent,
} from "../../test/support/gemini-api-server.js";
import { TRIM_NOTICE } from "../core/summary-format.js";
import { CompactionMemory } from "../store/index.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { compactionMiddleware, type MiddlewareCompaction } from "./compaction-middleware.js";
import { compactionPrepareStep, type PrepareStepCompaction } from "./prepare-step.js";

/**
 * The stateless paths through the real `@ai-sdk/google` against the loopback Gemini API, which
 * refuses what the API refuses (see `examples/support/gemini-rules.ts`): a function call turn
 * without its responses, and on Gemini 3 a function call of the current turn without the
 * `thoughtSignature` the API issued, byte for byte. The model thinks (`includeThoughts`), so
 * reasoning parts carry signatures too.
 */

const servers: GeminiApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const GEMINI = "gemini-3-flash-preview";

/** `@ai-sdk/google`'s model, talking to the loopback Gemini API. */
function geminiModel(server: GeminiApiServer, id = GEMINI): LanguageModelV3 {
  return createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: "test-key" })(id);
}

/** A model that thinks, then reads a file per request `calls` times, then answers. */
function readLoop(calls: number): GeminiScript {
  let made = 0;
  return () => {
    if (made >= calls) return { parts: [{ text: "All files read." }] };
    made += 1;
    return {
      parts: [
        { text: `I should read file ${made} next.`, thought: true },
        { text: `Reading file ${made}.` },
        { functionCall: { name: "read", args: { path: `src/f${made}.ts` } } },
      ],
    };
  };
}

async function standIn(script: GeminiScript): Promise<GeminiApiServer> {
  const server = await GeminiApiServer.start(script);
  servers.push(server);
  return server;
}

const THOUGHTS = { google: { thinkingConfig: { includeThoughts: true } } };

const start: ModelMessage[] = [
  { role: "user", content: "Read the files under src/ one by one, then say what they export." },
];

/**
 * The function calls of the last request, and how many carry the signature the server issued
 * (`@ai-sdk/google` writes the API's dummy, which skips the check, for a call that lost its own).
 */
function lastCalls(server: GeminiApiServer): { calls: number; signed: number } {
  const contents = server.requests.at(-1)!.body["contents"] as WireContent[];
  let calls = 0;
  let signed = 0;
  for (const content of contents)
    for (const part of content.parts as Record<string, unknown>[])
      if (part["functionCall"] !== undefined) {
        calls += 1;
        const signature = part["thoughtSignature"];
        if (typeof signature === "string" && server.issued.has(signature)) signed += 1;
      }
  return { calls, signed };
}

describe("the stateless paths through @ai-sdk/google (Gemini 3, thinking)", () => {
  it("compactionPrepareStep: compacts mid-loop, every call goes back with its signature", async () => {
    const server = await standIn(readLoop(8));
    const compactions: PrepareStepCompaction[] = [];
    const result = await generateText({
      model: geminiModel(server),
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(12),
      maxRetries: 0,
      providerOptions: THOUGHTS,
      prepareStep: compactionPrepareStep({
        contextLimit: 6_000,
        onCompaction: (event) => compactions.push(event),
      }),
    });
    expect(server.refusals).toEqual([]);
    expect(result.text).toBe("All files read.");
    expect(compactions.length).toBeGreaterThan(0);
    // Gemini 3 checks every call of the current turn (the whole loop): each went back signed.
    const { calls, signed } = lastCalls(server);
    expect(calls).toBe(8);
    expect(signed).toBe(calls);
    expect(JSON.stringify(server.requests.at(-1)!.body["contents"])).toContain(
      "Content redacted for context management",
    );
  });

  it("compactModelMessages: the compacted history is a valid next request", async () => {
    const server = await standIn(readLoop(6));
    const first = await generateText({
      model: geminiModel(server),
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(4),
      maxRetries: 0,
      providerOptions: THOUGHTS,
    });
    const history = [...start, ...first.response.messages];
    const { messages, compacted } = await compactModelMessages(history, { contextLimit: 6_000 });
    expect(compacted).toBe(true);
    const next = await generateText({
      model: geminiModel(server),
      tools: { read },
      messages,
      stopWhen: stepCountIs(6),
      maxRetries: 0,
      providerOptions: THOUGHTS,
    });
    expect(server.refusals).toEqual([]);
    expect(next.text).toBe("All files read.");
  });

  it("compactionMiddleware: compacts generateText's steps, signatures kept", async () => {
    const server = await standIn(readLoop(8));
    const compactions: MiddlewareCompaction[] = [];
    const model = wrapLanguageModel({
      model: geminiModel(server),
      middleware: compactionMiddleware({
        contextLimit: 6_000,
        onCompaction: (event) => compactions.push(event),
      }),
    });
    const result = await generateText({
      model,
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(12),
      maxRetries: 0,
      providerOptions: THOUGHTS,
    });
    expect(server.refusals).toEqual([]);
    expect(result.text).toBe("All files read.");
    expect(compactions.length).toBeGreaterThan(0);
    // Gemini 3 checks every call of the current turn (the whole loop): each went back signed.
    const { calls, signed } = lastCalls(server);
    expect(calls).toBe(8);
    expect(signed).toBe(calls);
    expect(JSON.stringify(server.requests.at(-1)!.body["contents"])).toContain(
      "Content redacted for context management",
    );
  });
});

/**
 * Earlier turns of long answers, then `request` and the first `reads` of its tool loop: more
 * than a small window holds. The last resort trims the oldest turns and writes its notice
 * before what it keeps: the latest request (always kept) and the newest reads.
 */
function longHistory(turns: number, request: string, reads = 0): ModelMessage[] {
  const history: ModelMessage[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    history.push({ role: "user", content: `Question ${turn}: explain module m${turn}.` });
    history.push({
      role: "assistant",
      content: `Module m${turn}: ${"it does this. ".repeat(150)}`,
    });
  }
  history.push({ role: "user", content: request });
  for (let call = 1; call <= reads; call += 1) {
    const path = `src/f${call}.ts`;
    const ids = { toolCallId: `read-${call}`, toolName: "read" };
    history.push({ role: "assistant", content: [{ type: "tool-call", ...ids, input: { path } }] });
    history.push({
      role: "tool",
      content: [{ type: "tool-result", ...ids, output: { type: "text", value: fileText(path) } }],
    });
  }
  return history;
}

/** How many of the server's requests held the last resort's notice, once. */
function withNotice(server: GeminiApiServer): number {
  return server.requests.filter(
    (request) => JSON.stringify(request.body["contents"]).split(TRIM_NOTICE).length === 2,
  ).length;
}

describe("a notice before the first kept request, through @ai-sdk/google", () => {
  // Gemini refuses two user contents in a row (rule 3): the library's notice and the request
  // it keeps after it go as one user content, the notice's parts first.
  const REQUEST = "Now read the files under src/ one by one.";

  it("compactModelMessages: the compacted history is accepted, the notice and the request one content", async () => {
    const server = await standIn(() => ({ parts: [{ text: "Done." }] }));
    const history = longHistory(10, REQUEST, 2);
    const { messages, compacted } = await compactModelMessages(history, { contextLimit: 4_000 });
    expect(compacted).toBe(true);
    await generateText({ model: geminiModel(server), messages, maxRetries: 0 });
    expect(server.refusals).toEqual([]);
    const contents = server.requests[0]!.body["contents"] as WireContent[];
    const first = JSON.stringify(contents[0]);
    expect(first).toContain(TRIM_NOTICE);
    expect(first.indexOf(TRIM_NOTICE)).toBeLessThan(first.indexOf(REQUEST));
  });

  it("compactModelMessages with a memory: each request of a conversation accepted, append-only", async () => {
    const server = await standIn(() => ({ parts: [{ text: "Done." }] }));
    const memory = new CompactionMemory();
    let history = longHistory(10, REQUEST, 2);
    let previous: string[] = [];
    for (let call = 0; call < 3; call += 1) {
      const { messages } = await compactModelMessages(history, { contextLimit: 4_000, memory });
      const result = await generateText({ model: geminiModel(server), messages, maxRetries: 0 });
      expect(server.refusals).toEqual([]);
      const sent = messages.map((message) => JSON.stringify(message));
      if (call > 0) expect(sent.slice(0, previous.length)).toEqual(previous);
      previous = sent;
      history = [
        ...history,
        ...result.response.messages,
        { role: "user", content: `Next ${call}.` },
      ];
    }
    expect(withNotice(server)).toBe(3);
  });

  it("compactionPrepareStep: every step of the loop accepted", async () => {
    const server = await standIn(readLoop(4));
    const compactions: PrepareStepCompaction[] = [];
    const prepareStep = compactionPrepareStep({
      contextLimit: 4_000,
      onCompaction: (event) => compactions.push(event),
    });
    const result = await generateText({
      model: geminiModel(server),
      tools: { read },
      messages: longHistory(10, REQUEST),
      stopWhen: stepCountIs(8),
      maxRetries: 0,
      providerOptions: THOUGHTS,
      prepareStep,
    });
    expect(server.refusals).toEqual([]);
    expect(result.text).toBe("All files read.");
    expect(server.requests).toHaveLength(5);
    expect(withNotice(server)).toBe(5);
    // Compacted again as the loop went on: the notice replaced each time, never a second one.
    expect(compactions.length).toBeGreaterThan(1);
    // The history kept after the loop is a valid next request too.
    // The history kept after the loop (the notice and the request one message) goes on, read
    // back apart: compacted again, one notice still.
    const next: ModelMessage[] = [...prepareStep.history(result), ...longHistory(4, "Thanks.")];
    await generateText({ model: geminiModel(server), messages: next, maxRetries: 0, prepareStep });
    expect(server.refusals).toEqual([]);
    expect(compactions.at(-1)?.stepNumber).toBe(0);
    expect(withNotice(server)).toBe(6);
  });

  it("compactionMiddleware: every call of the loop accepted", async () => {
    const server = await standIn(readLoop(4));
    const compactions: MiddlewareCompaction[] = [];
    const model = wrapLanguageModel({
      model: geminiModel(server),
      middleware: compactionMiddleware({
        contextLimit: 4_000,
        onCompaction: (event) => compactions.push(event),
      }),
    });
    const result = await generateText({
      model,
      tools: { read },
      messages: longHistory(10, REQUEST),
      stopWhen: stepCountIs(8),
      maxRetries: 0,
      providerOptions: THOUGHTS,
    });
    expect(server.refusals).toEqual([]);
    expect(result.text).toBe("All files read.");
    expect(withNotice(server)).toBe(5);
    expect(compactions.length).toBeGreaterThan(1);
  });
});
