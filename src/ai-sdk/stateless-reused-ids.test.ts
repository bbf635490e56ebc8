import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  anthropicModel,
  fileText,
  openaiModel,
  read,
  STATELESS_RESPONSES,
  THINKING,
} from "../../test/support/ai-sdk-providers.js";
import { MessagesApiServer, roughTokens } from "../../test/support/messages-api-server.js";
import { type Item, ResponsesApiServer } from "../../test/support/openai-responses-server.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { compactionMiddleware, type MiddlewareCompaction } from "./compaction-middleware.js";
import { compactionPrepareStep, type PrepareStepCompaction } from "./prepare-step.js";

/**
 * A provider that numbers each reply's tool calls (`call_0` in every reply: Ollama, some
 * OpenAI-compatible hosts) through the AI SDK's stateless paths: `compactModelMessages`, the
 * middleware and `prepareStep` sent the loop's repeated ids as they came, which the Messages
 * API refuses ("`tool_use` ids must be unique") and the Responses API too ("Duplicate
 * function_call_output"). Through the real `@ai-sdk/anthropic` and `@ai-sdk/openai` against
 * the loopback stand-ins; a call used again once answered goes as `<id>_<n>`.
 */

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A Messages API whose model reads a file per reply, each call `call_0`, `calls` times. */
async function numberingClaude(calls: number): Promise<MessagesApiServer> {
  let made = 0;
  const server = await MessagesApiServer.start({
    onMessages: (request) => {
      const usage = { input_tokens: roughTokens(request.body), output_tokens: 40 };
      if (made >= calls) return { type: "message", text: "All files read.", usage };
      made += 1;
      const use = { type: "tool_use", id: "call_0", name: "read", input: { path: `f${made}.ts` } };
      const content = [{ type: "text", text: `Reading file ${made}.` }, use];
      return { type: "message", content, stopReason: "tool_use", usage };
    },
  });
  servers.push(server);
  return server;
}

type WireBlock = { type: string; id?: string; tool_use_id?: string; input?: { path?: string } };
const wireMessages = (server: MessagesApiServer) =>
  server
    .requestsTo("messages")
    .map((request) => (request.body as { messages: { content: WireBlock[] | string }[] }).messages);
const blocks = (messages: { content: WireBlock[] | string }[]) =>
  messages.flatMap((message) => (typeof message.content === "string" ? [] : message.content));
/** The `tool_use` ids of each request, in order. */
const useIds = (server: MessagesApiServer) =>
  wireMessages(server).map((messages) =>
    blocks(messages).flatMap((block) => (block.type === "tool_use" ? [block.id!] : [])),
  );

/** Each request's ids distinct; each request's the last one's with the new call after them. */
function expectDistinctAndStable(requests: string[][]): void {
  for (const ids of requests) expect(new Set(ids).size).toBe(ids.length);
  for (let index = 1; index < requests.length; index += 1)
    expect(requests[index]!.slice(0, -1)).toEqual(requests[index - 1]);
}

/** Each result answers the call its text was read for (its id the id that call was sent with). */
function expectPaired(server: MessagesApiServer): void {
  for (const messages of wireMessages(server)) {
    const paths = new Map<string, string>();
    for (const block of blocks(messages)) {
      if (block.type === "tool_use") paths.set(block.id!, block.input!.path!);
      // A masked result holds no file's text; a whole one holds its call's.
      const read = /\/\/ (f\d+\.ts)/.exec(JSON.stringify(block))?.[1];
      if (block.type === "tool_result" && read !== undefined)
        expect(read).toBe(paths.get(block.tool_use_id!));
    }
  }
}

/** A next request of the conversation: its tools and thinking as the loop's. */
const followUp = (server: MessagesApiServer) => ({
  model: anthropicModel(server),
  tools: { read },
  maxRetries: 0,
  providerOptions: THINKING,
});

const start: ModelMessage[] = [{ role: "user", content: "Read the files one by one." }];
const FOUR = [[], ["call_0"], ["call_0", "call_0_2"], ["call_0", "call_0_2", "call_0_3"]];

describe("a provider's reused call ids through compactionMiddleware and @ai-sdk/anthropic", () => {
  it("sends each step's calls distinct, the same names at every step, thinking valid and unmarked", async () => {
    const server = await numberingClaude(4);
    const model = wrapLanguageModel({
      model: anthropicModel(server),
      middleware: compactionMiddleware({ contextLimit: 100_000 }),
    });
    const result = await generateText({
      model,
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(6),
      maxRetries: 0,
      providerOptions: THINKING,
    });
    expect(result.text).toBe("All files read.");
    const requests = useIds(server);
    expect(requests.slice(0, 4)).toEqual(FOUR);
    expect(requests[4]).toEqual(["call_0", "call_0_2", "call_0_3", "call_0_4"]);
    expectDistinctAndStable(requests);
    expectPaired(server);
    // Only ids renamed, nothing compacted: the replies' thinking holds on the app's history,
    // which every path renames the same way, so it is not marked as over a compacted prompt.
    expect(JSON.stringify(result.response.messages)).not.toContain("agentCompaction");
    const again = await compactModelMessages(
      [...start, ...result.response.messages, { role: "user", content: "Thanks." }],
      { contextLimit: 100_000 },
    );
    await generateText({ ...followUp(server), messages: again.messages });
    expect(useIds(server).at(-1)).toEqual(requests[4]);
  });

  it("keeps every request valid through compactions mid-loop", async () => {
    const server = await numberingClaude(8);
    const compactions: MiddlewareCompaction[] = [];
    const model = wrapLanguageModel({
      model: anthropicModel(server),
      middleware: compactionMiddleware({
        contextLimit: 5_000,
        onCompaction: (event) => compactions.push(event),
      }),
    });
    const result = await generateText({
      model,
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(10),
      maxRetries: 0,
      providerOptions: THINKING,
    });
    expect(result.text).toBe("All files read.");
    expect(compactions.length).toBeGreaterThan(0);
    for (const ids of useIds(server)) expect(new Set(ids).size).toBe(ids.length);
    expectPaired(server);
  });
});

describe("a provider's reused call ids through compactionPrepareStep and @ai-sdk/anthropic", () => {
  it("sends each step's calls distinct and stable; its history is a valid next request", async () => {
    const server = await numberingClaude(4);
    const prepareStep = compactionPrepareStep({ contextLimit: 100_000 });
    const result = await generateText({
      model: anthropicModel(server),
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(6),
      maxRetries: 0,
      providerOptions: THINKING,
      prepareStep,
    });
    expect(result.text).toBe("All files read.");
    const requests = useIds(server);
    expect(requests.slice(0, 4)).toEqual(FOUR);
    expectDistinctAndStable(requests);
    expectPaired(server);
    const next = [...prepareStep.history(result), { role: "user", content: "Thanks." } as const];
    const sent = await compactModelMessages(next, { contextLimit: 100_000 });
    await generateText({ ...followUp(server), messages: sent.messages });
    expect(useIds(server).at(-1)).toEqual(requests.at(-1));
  });

  it("keeps every request valid through compactions mid-loop", async () => {
    const server = await numberingClaude(8);
    const compactions: PrepareStepCompaction[] = [];
    const result = await generateText({
      model: anthropicModel(server),
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(10),
      maxRetries: 0,
      providerOptions: THINKING,
      prepareStep: compactionPrepareStep({
        contextLimit: 5_000,
        onCompaction: (event) => compactions.push(event),
      }),
    });
    expect(result.text).toBe("All files read.");
    expect(compactions.length).toBeGreaterThan(0);
    for (const ids of useIds(server)) expect(new Set(ids).size).toBe(ids.length);
    expectPaired(server);
  });
});

/** A stored loop of `calls` reads, each `call_0`, with the results `read` gives. */
function storedLoop(calls: number): ModelMessage[] {
  const history: ModelMessage[] = [...start];
  for (let made = 1; made <= calls; made += 1) {
    const path = `f${made}.ts`;
    history.push(
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "call_0", toolName: "read", input: { path } }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_0",
            toolName: "read",
            output: { type: "text", value: fileText(path) },
          },
        ],
      },
    );
  }
  return history;
}

describe("compactModelMessages on a stored history of reused call ids", () => {
  it("renames them, compacted or not, and an approved call runs as the one it approved", async () => {
    const server = await numberingClaude(0);
    for (const contextLimit of [100_000, 6_000]) {
      const { messages, compacted } = await compactModelMessages(
        [...storedLoop(6), { role: "user", content: "What do they export?" }],
        { contextLimit },
      );
      expect(compacted).toBe(true);
      await generateText({ model: anthropicModel(server), messages, maxRetries: 0 });
    }
    const [whole, compacted] = useIds(server);
    expect(whole).toEqual(["call_0", "call_0_2", "call_0_3", "call_0_4", "call_0_5", "call_0_6"]);
    expect(new Set(compacted).size).toBe(compacted!.length);
    expectPaired(server);

    // A call waiting for its approval, `call_0` again: the SDK finds the call by the id its
    // approval request names, runs it, and sends its result under the call's new id.
    const ran: string[] = [];
    const remove = tool({
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => {
        ran.push(path);
        return `removed ${path}`;
      },
    });
    const pending: ModelMessage[] = [
      ...storedLoop(2),
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "call_0", toolName: "remove", input: { path: "f2.ts" } },
          { type: "tool-approval-request", approvalId: "ap1", toolCallId: "call_0" },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: "ap1", approved: true }],
      },
    ];
    const { messages } = await compactModelMessages(pending, { contextLimit: 100_000 });
    await generateText({
      model: anthropicModel(server),
      tools: { read, remove },
      messages,
      maxRetries: 0,
    });
    expect(ran).toEqual(["f2.ts"]);
    const last = blocks(wireMessages(server).at(-1)!);
    expect(last.filter((block) => block.type === "tool_use").map((block) => block.id)).toEqual([
      "call_0",
      "call_0_2",
      "call_0_3",
    ]);
    expect(JSON.stringify(last.at(-1))).toContain('"tool_use_id":"call_0_3"');
  });
});

describe("a provider's reused call ids through compactionMiddleware and @ai-sdk/openai (Responses)", () => {
  it("sends each call and its output under a distinct call_id", async () => {
    let made = 0;
    const server = await ResponsesApiServer.start((_request, ids) => {
      if (made >= 3) {
        const text = { type: "output_text", text: "All files read.", annotations: [] };
        return {
          output: [
            {
              type: "message",
              id: ids("msg"),
              role: "assistant",
              status: "completed",
              content: [text],
            },
          ],
        };
      }
      made += 1;
      const call: Item = {
        type: "function_call",
        id: ids("fc"),
        call_id: "call_0",
        name: "read",
        arguments: JSON.stringify({ path: `f${made}.ts` }),
        status: "completed",
      };
      return { output: [call] };
    });
    servers.push(server);
    const model = wrapLanguageModel({
      model: openaiModel(server),
      middleware: compactionMiddleware({ contextLimit: 100_000 }),
    });
    const result = await generateText({
      model,
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(5),
      maxRetries: 0,
      providerOptions: STATELESS_RESPONSES,
    });
    expect(result.text).toBe("All files read.");
    expect(server.refusals).toEqual([]);
    const input = server.requests.at(-1)!.body["input"] as Item[];
    const callIds = (type: string) =>
      input.filter((item) => item["type"] === type).map((item) => item["call_id"]);
    expect(callIds("function_call")).toEqual(["call_0", "call_0_2", "call_0_3"]);
    expect(callIds("function_call_output")).toEqual(["call_0", "call_0_2", "call_0_3"]);
  });
});
