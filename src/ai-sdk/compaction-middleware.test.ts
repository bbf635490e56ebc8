import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import {
  generateObject,
  generateText,
  type ModelMessage,
  stepCountIs,
  streamText,
  wrapLanguageModel,
} from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { anthropicModel, read, readLoop, THINKING } from "../../test/support/ai-sdk-providers.js";
import { MessagesApiServer, roughTokens } from "../../test/support/messages-api-server.js";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import { ValidationError } from "../core/errors.js";
import { compactionMiddleware, type MiddlewareCompaction } from "./compaction-middleware.js";

/**
 * The middleware through `wrapLanguageModel` and the real `@ai-sdk/anthropic` against the
 * loopback Messages API (thinking signed and checked, streaming as server-sent events).
 */

const servers: MessagesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function standIn(onMessages: Parameters<typeof MessagesApiServer.start>[0]) {
  const server = await MessagesApiServer.start(onMessages);
  servers.push(server);
  return server;
}

const start: ModelMessage[] = [
  { role: "user", content: "Read the files under src/ one by one, then say what they export." },
];

type Body = { system?: unknown; messages: { role: string; content: unknown }[] };

/** Each request's messages, as the stand-in received them. */
const bodies = (server: MessagesApiServer) =>
  server.requestsTo("messages").map((request) => request.body as Body);

describe("compactionMiddleware", () => {
  it("compacts every step of generateText; requests stay append-only between compactions", async () => {
    const server = await standIn({ onMessages: readLoop(14) });
    const compactions: MiddlewareCompaction[] = [];
    const model = wrapLanguageModel({
      model: anthropicModel(server),
      middleware: compactionMiddleware({
        contextLimit: 20_000,
        compactor: new ThresholdCompactor({
          threshold: 0.5,
          keepRecentToolUses: 2,
          toolCompaction: "redact",
        }),
        onCompaction: (event) => compactions.push(event),
      }),
    });
    const result = await generateText({
      model,
      system: "You are a careful coding agent.",
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(18),
      maxRetries: 0,
      providerOptions: THINKING,
    });
    expect(result.text).toBe("All files read.");
    expect(compactions.length).toBeGreaterThan(0);
    // Remembered between steps: compacted when due, not again at every step after it.
    expect(compactions.length).toBeLessThanOrEqual(2);
    expect(compactions[0]!.modelId).toBe("claude-sonnet-5-5");
    const sent = bodies(server);
    expect(Math.max(...sent.map((body) => roughTokens(body)))).toBeLessThan(20_000);
    // Between compactions a request is the one before it with the new messages after it.
    let appendOnly = 0;
    for (let index = 1; index < sent.length; index += 1) {
      const before = sent[index - 1]!.messages;
      const prefix = sent[index]!.messages.slice(0, before.length - 1);
      if (JSON.stringify(prefix) === JSON.stringify(before.slice(0, -1))) appendOnly += 1;
    }
    expect(appendOnly).toBeGreaterThanOrEqual(sent.length - 1 - compactions.length);
  });

  it("compacts streamText's steps (server-sent events)", async () => {
    const server = await standIn({ onMessages: readLoop(7) });
    const compactions: MiddlewareCompaction[] = [];
    const model = wrapLanguageModel({
      model: anthropicModel(server),
      middleware: compactionMiddleware({
        contextLimit: 5_000,
        onCompaction: (event) => compactions.push(event),
      }),
    });
    const result = streamText({
      model,
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(10),
      maxRetries: 0,
      providerOptions: THINKING,
    });
    expect(await result.text).toContain("All files read.");
    expect(compactions.length).toBeGreaterThan(0);
    expect(
      server
        .requestsTo("messages")
        .every((request) => (request.body as { stream?: boolean }).stream),
    ).toBe(true);
  });

  it("compacts generateObject's prompt", async () => {
    const server = await standIn({
      onMessages: () => ({ type: "message", text: JSON.stringify({ files: ["src/a.ts"] }) }),
    });
    const compactions: MiddlewareCompaction[] = [];
    const model = wrapLanguageModel({
      model: anthropicModel(server),
      middleware: compactionMiddleware({
        contextLimit: 4_000,
        onCompaction: (event) => compactions.push(event),
      }),
    });
    const history: ModelMessage[] = [...start];
    for (let index = 1; index <= 6; index += 1) {
      const toolCallId = `toolu_${index}`;
      const path = `src/f${index}.ts`;
      history.push(
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId, toolName: "read", input: { path } }],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId,
              toolName: "read",
              output: { type: "text", value: "export const value = 42;\n".repeat(100) },
            },
          ],
        },
      );
    }
    history.push({ role: "user", content: "List the files you read." });
    const { object } = await generateObject({
      model,
      schema: z.object({ files: z.array(z.string()) }),
      messages: history,
      maxRetries: 0,
    });
    expect(object.files).toEqual(["src/a.ts"]);
    expect(compactions).toHaveLength(1);
    expect(roughTokens(bodies(server)[0])).toBeLessThan(4_000);
  });

  it("judges each call on the usage the model reported for the call before (generate and stream)", async () => {
    // A model whose tokenizer counts 3 tokens where the local estimate sees 1.
    const counted = (prompt: unknown) => 3 * Math.ceil(JSON.stringify(prompt).length / 4);
    const usage = (prompt: unknown) => ({
      inputTokens: {
        total: counted(prompt),
        noCache: counted(prompt),
        cacheRead: 0,
        cacheWrite: 0,
      },
      outputTokens: { total: 10, text: 10, reasoning: undefined },
    });
    let step = 0;
    const call = () => ({
      type: "tool-call" as const,
      toolCallId: `c${++step}`,
      toolName: "read",
      input: JSON.stringify({ path: `src/f${step}.ts` }),
    });
    const finish = { unified: "tool-calls" as const, raw: undefined };
    const mock = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => ({
        content: [call()],
        finishReason: finish,
        usage: usage(prompt),
        warnings: [],
      }),
      doStream: async ({ prompt }) => ({
        stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
          { type: "stream-start", warnings: [] },
          call(),
          { type: "finish", finishReason: finish, usage: usage(prompt) },
        ]),
      }),
    });
    for (const mode of ["generate", "stream"] as const) {
      const compactions: MiddlewareCompaction[] = [];
      const model = wrapLanguageModel({
        model: mock,
        middleware: compactionMiddleware({
          contextLimit: 30_000,
          onCompaction: (event) => compactions.push(event),
        }),
      });
      // More steps than the 8 newest tool uses the default keeps whole.
      const options = { model, tools: { read }, messages: start, stopWhen: stepCountIs(14) };
      if (mode === "generate") await generateText(options);
      else await streamText(options).consumeStream();
      const prompts = (mode === "generate" ? mock.doGenerateCalls : mock.doStreamCalls).map(
        (each) => Math.ceil(JSON.stringify(each.prompt).length / 4),
      );
      // Compacted while the local estimate was far below the threshold (three quarters of the
      // window), never above half of it: the usage said more.
      expect(compactions.length, mode).toBeGreaterThan(0);
      expect(Math.max(...prompts), mode).toBeLessThan(15_000);
      expect(compactions[0]!.contextUsed, mode).toBeGreaterThan(22_500);
    }
  });

  it("takes the window from the model's id, and names the option when it is not known", async () => {
    const server = await standIn({ onMessages: { type: "message", text: "ok" } });
    const known = wrapLanguageModel({
      model: anthropicModel(server),
      middleware: compactionMiddleware(),
    });
    expect((await generateText({ model: known, prompt: "hi", maxRetries: 0 })).text).toBe("ok");
    const unknown = wrapLanguageModel({
      model: anthropicModel(server, "claude-unreleased"),
      middleware: compactionMiddleware(),
    });
    await expect(generateText({ model: unknown, prompt: "hi", maxRetries: 0 })).rejects.toThrow(
      /contextLimit: is required: the window of model "claude-unreleased" is not known/,
    );
    expect(() => compactionMiddleware({ contextLimit: -1 })).toThrow(ValidationError);
  });
});
