import { generateText, type ModelMessage, stepCountIs, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { anthropicModel, refusals, THINKING } from "../../test/support/ai-sdk-providers.js";
import { MessagesApiServer, roughTokens } from "../../test/support/messages-api-server.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { compactionPrepareStep, type LoopResult } from "./prepare-step.js";

/**
 * Two user turns of docs/recipes.md's AI SDK loop, through the real `@ai-sdk/anthropic` with
 * thinking, against the loopback Messages API (which refuses thinking signed over another
 * prefix). Many small calls with long ids; where the provider counts more than the local
 * estimate (`denser`: its tokenizer on code or CJK text), the reported usage crosses the
 * threshold well before the estimate does, so the first loop compacts on its usage, and a later
 * fresh look at the loop's uncompacted history finds nothing to compact.
 */

const servers: MessagesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const CONTEXT_LIMIT = 6_000;
const CALLS_PER_TURN = 24;

const check = tool({
  description: "Checks a file",
  inputSchema: z.object({ f: z.string() }),
  execute: async () => "ok",
});

async function smallCallsStandIn(
  denser = 1,
): Promise<{ server: MessagesApiServer; newTurn: () => void }> {
  let made = 0;
  let inTurn = 0;
  const server = await MessagesApiServer.start({
    onMessages: (request) => {
      made += 1;
      inTurn += 1;
      const input = Math.round(roughTokens(request.body) * denser);
      const usage = { input_tokens: input, output_tokens: 20 };
      if (inTurn > CALLS_PER_TURN) return { type: "message", text: "Checked.", usage };
      const id = `toolu_01${((made * 2_654_435_761) >>> 0).toString(36)}Xq9vLmZ3aB7`;
      const use = { type: "tool_use", id, name: "check", input: { f: `f${made}` } };
      return { type: "message", content: [use], stopReason: "tool_use", usage };
    },
  });
  servers.push(server);
  return { server, newTurn: () => (inTurn = 0) };
}

/** Two turns of the recipe; `keep` makes the history kept after each loop. */
async function twoTurns(
  keep: (
    prepareStep: ReturnType<typeof compactionPrepareStep>,
    sent: ModelMessage[],
    result: LoopResult,
  ) => ModelMessage[],
  denser = 1,
) {
  const { server, newTurn } = await smallCallsStandIn(denser);
  let history: ModelMessage[] = [];
  let compactions = 0;
  for (const text of ["Check every file in src/.", "Now check test/."]) {
    newTurn();
    history = [...history, { role: "user", content: text }];
    const { messages } = await compactModelMessages(history, { contextLimit: CONTEXT_LIMIT });
    const prepareStep = compactionPrepareStep({
      contextLimit: CONTEXT_LIMIT,
      onCompaction: () => (compactions += 1),
    });
    const result = await generateText({
      model: anthropicModel(server),
      tools: { check },
      messages,
      stopWhen: stepCountIs(50),
      maxRetries: 0,
      providerOptions: THINKING,
      prepareStep,
    });
    expect(result.text).toBe("Checked.");
    history = keep(prepareStep, messages, result);
  }
  return { server, compactions };
}

describe("the history a compacting AI SDK loop leaves", () => {
  it("prepareStep.history(...) is what was sent: the next turn's thinking passes the signature check", async () => {
    const { server, compactions } = await twoTurns((prepareStep, _sent, result) =>
      prepareStep.history(result),
    );
    expect(compactions).toBeGreaterThan(0);
    expect(await refusals(server)).toEqual([]);
  });

  it("the loop's own messages are not: where the provider counts 2x the estimate, the next turn is refused (why history(...) exists)", async () => {
    await expect(
      twoTurns((_prepareStep, sent, result) => [...sent, ...result.response.messages], 2),
    ).rejects.toThrow(/Invalid `signature` in `thinking` block/);
  });

  it("history(...) refuses a loop it did not prepare and response messages that cannot be the loop's", async () => {
    const prepareStep = compactionPrepareStep({ contextLimit: CONTEXT_LIMIT });
    const steps: { usage: never }[] = [];
    const response = (messages: ModelMessage[]) => ({ steps, response: { messages } });
    expect(() => prepareStep.history(response([]))).toThrow(/steps: must be the steps of a loop/);
    expect(() => prepareStep.history(undefined as never)).toThrow(/steps: must be/);
    const messages: ModelMessage[] = [{ role: "user", content: "hi" }];
    await prepareStep({ steps, stepNumber: 0, messages });
    const reply: ModelMessage = { role: "assistant", content: "hello" };
    await prepareStep({ steps, stepNumber: 1, messages: [...messages, reply] });
    expect(() => prepareStep.history(response([]))).toThrow(
      /response\.messages: must be the loop's/,
    );
    expect(() => prepareStep.history({ steps } as never)).toThrow(/response\.messages: must be/);
    const last: ModelMessage = { role: "assistant", content: "bye" };
    expect(prepareStep.history(response([reply, last]))).toEqual([...messages, reply, last]);
  });

  // Review 53's finding 1: a loop given an approval runs the approved call before its first
  // step, and its results open both that step's messages and the response messages.
  it("history(...) of a loop that went on from a tool approval holds its results once", async () => {
    const server = await MessagesApiServer.start({
      onMessages: (request) => {
        const usage = { input_tokens: roughTokens(request.body), output_tokens: 20 };
        const body = JSON.stringify(request.body);
        if (body.includes("removed build/")) return { type: "message", text: "Deleted.", usage };
        const use = { type: "tool_use", id: "toolu_rm", name: "remove", input: { path: "build/" } };
        return { type: "message", content: [use], stopReason: "tool_use", usage };
      },
    });
    servers.push(server);
    const remove = tool({
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => `removed ${path}`,
    });
    const base = {
      model: anthropicModel(server),
      tools: { remove },
      maxRetries: 0,
      providerOptions: THINKING,
    } as const;
    const start: ModelMessage[] = [{ role: "user", content: "Clean build/." }];
    const first = await generateText({ ...base, messages: start });
    const asked = (first.response.messages.at(-1)!.content as { approvalId?: string }[]).find(
      (part) => part.approvalId !== undefined,
    )!;
    const approval: ModelMessage = {
      role: "tool",
      content: [{ type: "tool-approval-response", approvalId: asked.approvalId!, approved: true }],
    };
    const messages = [...start, ...first.response.messages, approval];
    const prepareStep = compactionPrepareStep({ contextLimit: CONTEXT_LIMIT });
    const second = await generateText({ ...base, messages, prepareStep });
    expect(second.text).toBe("Deleted.");
    const kept = prepareStep.history(second);
    expect(kept).toEqual([...messages, ...second.response.messages]);
    const next = await generateText({
      ...base,
      messages: [...kept, { role: "user", content: "Thanks." }],
    });
    expect(next.text).toBe("Deleted.");
    expect(await refusals(server)).toEqual([]);
  });

  // Review 53's finding 2: one function serves an Agent's concurrent loops.
  it("history(...) of loops that ran at once through one function is each loop's own", async () => {
    const prepareStep = compactionPrepareStep({ contextLimit: CONTEXT_LIMIT });
    const { server } = await smallCallsStandIn();
    const run = (text: string) =>
      generateText({
        model: anthropicModel(server),
        tools: { check },
        messages: [{ role: "user", content: text }],
        stopWhen: stepCountIs(4),
        maxRetries: 0,
        prepareStep,
      });
    const [a, b] = await Promise.all([run("I am loop A."), run("I am loop B.")]);
    expect(prepareStep.history(a)).toEqual([
      { role: "user", content: "I am loop A." },
      ...a.response.messages,
    ]);
    expect(prepareStep.history(b)).toEqual([
      { role: "user", content: "I am loop B." },
      ...b.response.messages,
    ]);
  });
});
