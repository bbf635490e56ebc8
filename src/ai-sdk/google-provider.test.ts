import { createGoogleGenerativeAI } from "@ai-sdk/google";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { read } from "../../test/support/ai-sdk-providers.js";
import {
  GeminiApiServer,
  type GeminiScript,
  type WireContent,
} from "../../test/support/gemini-api-server.js";
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
