import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import {
  anthropicModel,
  read,
  readLoop,
  refusals,
  THINKING,
} from "../../test/support/ai-sdk-providers.js";
import { MessagesApiServer } from "../../test/support/messages-api-server.js";
import { MemoryArchive } from "../session/archive.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { compactionMiddleware } from "./compaction-middleware.js";
import { compactionPrepareStep, type PrepareStepCompaction } from "./prepare-step.js";
import { RECALL_TOOL_NAME, recallTool } from "./recall-tool.js";

/**
 * The stateless paths through the real `@ai-sdk/anthropic` against the loopback Messages API,
 * which signs a thinking block at the start of every reply while the request thinks and
 * refuses, as the API does, any thinking block sent back after an edit before it.
 */

const servers: MessagesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function standIn(calls: number): Promise<MessagesApiServer> {
  const server = await MessagesApiServer.start({ onMessages: readLoop(calls) });
  servers.push(server);
  return server;
}

const start: ModelMessage[] = [
  { role: "system", content: "You are a careful coding agent." },
  { role: "user", content: "Read the files under src/ one by one, then say what they export." },
];

/** A read loop of 8 calls through `compactionPrepareStep` in a 6,000-token window. */
async function compactedLoop(providerOptions?: typeof THINKING) {
  const server = await standIn(8);
  const compactions: PrepareStepCompaction[] = [];
  const result = await generateText({
    model: anthropicModel(server),
    tools: { read },
    messages: start,
    allowSystemInMessages: true,
    stopWhen: stepCountIs(14),
    maxRetries: 0,
    ...(providerOptions === undefined ? {} : { providerOptions }),
    prepareStep: compactionPrepareStep({
      contextLimit: 6_000,
      onCompaction: (event) => compactions.push(event),
    }),
  });
  return { server, compactions, result };
}

describe("compactionPrepareStep through @ai-sdk/anthropic", () => {
  it("takes the provider's tool-call metadata (caller.toolId: undefined) and compacts mid-loop", async () => {
    const { compactions, result } = await compactedLoop();
    expect(result.text).toBe("All files read.");
    expect(compactions.length).toBeGreaterThan(0);
    // The provider's own messages hold the metadata the conversion once refused.
    expect(JSON.stringify(result.response.messages)).toContain('"caller":{"type":"direct"}');
  });

  it("drops the thinking a compaction made stale: every request passes the signature check", async () => {
    const { server, compactions, result } = await compactedLoop(THINKING);
    expect(result.text).toBe("All files read.");
    expect(compactions.some((event) => event.thinkingBlocksDropped > 0)).toBe(true);
    const bodies = server.requestsTo("messages").map((request) => request.body);
    expect(bodies.every((body) => (body as { thinking?: unknown }).thinking !== undefined)).toBe(
      true,
    );
  });
});

describe("recall through @ai-sdk/anthropic", () => {
  it("the model fetches back what a compaction archived, with recallTool", async () => {
    const loop = readLoop(8);
    let recalled: string | undefined;
    const server = await MessagesApiServer.start({
      onMessages: (request) => {
        // A handle a placeholder names (the tool's description names an example one).
        const text = JSON.stringify((request.body as { messages: unknown }).messages);
        const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(text)?.[1];
        if (handle === undefined || recalled !== undefined) return loop(request);
        recalled = handle;
        const use = {
          type: "tool_use",
          id: "toolu_recall",
          name: RECALL_TOOL_NAME,
          input: { handle },
        };
        return { type: "message", content: [use], stopReason: "tool_use" };
      },
    });
    servers.push(server);
    const archive = new MemoryArchive();
    const result = await generateText({
      model: anthropicModel(server),
      tools: { read, [RECALL_TOOL_NAME]: recallTool({ archive, sessionId: "chat-7" }) },
      messages: start,
      allowSystemInMessages: true,
      stopWhen: stepCountIs(14),
      maxRetries: 0,
      providerOptions: THINKING,
      prepareStep: compactionPrepareStep({ contextLimit: 6_000, archive, sessionId: "chat-7" }),
    });
    expect(result.text).toBe("All files read.");
    expect(recalled).toBeDefined();
    const answer = result.steps
      .flatMap((step) => step.toolResults)
      .find((toolResult) => toolResult.toolName === RECALL_TOOL_NAME);
    expect(String(answer?.output)).toContain("export const value = 42;");
  });
});

describe("compactModelMessages through @ai-sdk/anthropic", () => {
  it("compacts a thinking conversation the provider wrote; the next request is accepted", async () => {
    const server = await standIn(6);
    const first = await generateText({
      model: anthropicModel(server),
      tools: { read },
      messages: start,
      allowSystemInMessages: true,
      stopWhen: stepCountIs(4),
      maxRetries: 0,
      providerOptions: THINKING,
    });
    const history = [...start, ...first.response.messages];
    const { messages, compacted } = await compactModelMessages(history, { contextLimit: 5_000 });
    expect(compacted).toBe(true);
    const next = await generateText({
      model: anthropicModel(server),
      tools: { read },
      messages,
      allowSystemInMessages: true,
      stopWhen: stepCountIs(6),
      maxRetries: 0,
      providerOptions: THINKING,
    });
    expect(next.text).toBe("All files read.");
  });
});

describe("a thinking history written without compaction, continued in a smaller window", () => {
  // Each result (~1,050 tokens) is over a quarter of the 4,000-token window: every path clamps
  // them as it takes them in. The thinking after a clamped result was signed on the whole text,
  // so it must go, or the Messages API refuses the next request (its signature check).
  const entries = ["compactModelMessages", "prepareStep", "middleware"] as const;
  for (const entry of entries) {
    it(`${entry}: the thinking after a clamped result goes; the request is accepted`, async () => {
      const server = await standIn(10);
      const base = {
        tools: { read },
        allowSystemInMessages: true,
        maxRetries: 0,
        providerOptions: THINKING,
      } as const;
      const first = await generateText({
        ...base,
        model: anthropicModel(server),
        messages: start,
        stopWhen: stepCountIs(2),
      });
      const history = [...start, ...first.response.messages];
      const options = { contextLimit: 4_000 };
      const next = await generateText({
        ...base,
        stopWhen: stepCountIs(1),
        ...(entry === "compactModelMessages"
          ? {
              model: anthropicModel(server),
              messages: (await compactModelMessages(history, options)).messages,
            }
          : entry === "prepareStep"
            ? {
                model: anthropicModel(server),
                messages: history,
                prepareStep: compactionPrepareStep(options),
              }
            : {
                model: wrapLanguageModel({
                  model: anthropicModel(server),
                  middleware: compactionMiddleware(options),
                }),
                messages: history,
              }),
      });
      expect(await refusals(server)).toEqual([]);
      expect(next.text).toBe("Reading file 3.");
      const sent = JSON.stringify(server.requestsTo("messages").at(-1)!.body);
      expect(sent).toContain("characters cut to fit the context window");
    });
  }
});
