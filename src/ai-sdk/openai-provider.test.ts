import {
  generateObject,
  generateText,
  type ModelMessage,
  stepCountIs,
  wrapLanguageModel,
} from "ai";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { openaiModel, read, STATELESS_RESPONSES } from "../../test/support/ai-sdk-providers.js";
import {
  type Item,
  ResponsesApiServer,
  type ResponsesScript,
} from "../../test/support/openai-responses-server.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { compactionMiddleware, type MiddlewareCompaction } from "./compaction-middleware.js";
import { compactionPrepareStep, type PrepareStepCompaction } from "./prepare-step.js";

/**
 * The stateless paths through the real `@ai-sdk/openai` (Responses) against the loopback
 * Responses API, which refuses what the API refuses: a call without its output, reasoning
 * without the item it came with or with other encrypted content, an item without its reasoning.
 */

const servers: ResponsesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A reasoning model that reads a file per request (a reasoning item before each call) `calls` times. */
function readLoop(calls: number): ResponsesScript {
  let made = 0;
  return (_request, ids) => {
    const reasoning: Item = { type: "reasoning", id: ids("rs"), summary: [] };
    if (made >= calls) {
      const text = { type: "output_text", text: "All files read.", annotations: [] };
      const message = { type: "message", id: ids("msg"), role: "assistant", status: "completed" };
      return { output: [reasoning, { ...message, content: [text] }] };
    }
    made += 1;
    const call = {
      type: "function_call",
      id: ids("fc"),
      call_id: ids("call"),
      name: "read",
      arguments: JSON.stringify({ path: `src/f${made}.ts` }),
      status: "completed",
    };
    return { output: [reasoning, call] };
  };
}

async function standIn(script: ResponsesScript): Promise<ResponsesApiServer> {
  const server = await ResponsesApiServer.start(script);
  servers.push(server);
  return server;
}

const start: ModelMessage[] = [
  { role: "user", content: "Read the files under src/ one by one, then say what they export." },
];

describe("the stateless paths through @ai-sdk/openai (Responses)", () => {
  it("compactionPrepareStep: compacts mid-loop, every request keeps the Responses API's rules", async () => {
    const server = await standIn(readLoop(8));
    const compactions: PrepareStepCompaction[] = [];
    const result = await generateText({
      model: openaiModel(server),
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(12),
      maxRetries: 0,
      providerOptions: STATELESS_RESPONSES,
      prepareStep: compactionPrepareStep({
        contextLimit: 6_000,
        onCompaction: (event) => compactions.push(event),
      }),
    });
    expect(result.text).toBe("All files read.");
    expect(server.refusals).toEqual([]);
    expect(compactions.length).toBeGreaterThan(0);
    const inputs = server.requests.map((request) => request.body["input"] as Item[]);
    // Reasoning went back with its encrypted content, in place.
    expect(inputs.at(-1)!.some((item) => item["type"] === "reasoning")).toBe(true);
  });

  it("compactModelMessages: the compacted history is a valid next request", async () => {
    const server = await standIn(readLoop(6));
    const first = await generateText({
      model: openaiModel(server),
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(4),
      maxRetries: 0,
      providerOptions: STATELESS_RESPONSES,
    });
    const history = [...start, ...first.response.messages];
    const { messages, compacted } = await compactModelMessages(history, { contextLimit: 5_000 });
    expect(compacted).toBe(true);
    const next = await generateText({
      model: openaiModel(server),
      tools: { read },
      messages,
      stopWhen: stepCountIs(6),
      maxRetries: 0,
      providerOptions: STATELESS_RESPONSES,
    });
    expect(next.text).toBe("All files read.");
    expect(server.refusals).toEqual([]);
  });

  it("compactionMiddleware: generateText's steps and generateObject's prompt", async () => {
    const server = await standIn(readLoop(8));
    const compactions: MiddlewareCompaction[] = [];
    const model = wrapLanguageModel({
      model: openaiModel(server),
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
      providerOptions: STATELESS_RESPONSES,
    });
    expect(result.text).toBe("All files read.");
    expect(compactions.length).toBeGreaterThan(0);
    server.script = (_request, ids) => ({
      output: [
        {
          type: "message",
          id: ids("msg"),
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: '{"files":["src/f1.ts"]}', annotations: [] }],
        },
      ],
    });
    const { object } = await generateObject({
      model,
      schema: z.object({ files: z.array(z.string()) }),
      messages: [...start, ...result.response.messages, { role: "user", content: "List them." }],
      maxRetries: 0,
      providerOptions: STATELESS_RESPONSES,
    });
    expect(object.files).toEqual(["src/f1.ts"]);
    // It continues the conversation the loop compacted: it goes out compacted as it was sent.
    const last = JSON.stringify(server.requests.at(-1)!.body["input"]);
    expect(last).toMatch(/Content redacted for context management|Earlier messages were removed/);
    expect(last).toContain("List them.");
    expect(server.refusals).toEqual([]);
  });
});
