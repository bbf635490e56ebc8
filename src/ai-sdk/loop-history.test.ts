import { generateText, type ModelMessage, stepCountIs, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { anthropicModel, refusals, THINKING } from "../../test/support/ai-sdk-providers.js";
import { MessagesApiServer, roughTokens } from "../../test/support/messages-api-server.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { compactionPrepareStep } from "./prepare-step.js";

/**
 * Two user turns of docs/recipes.md's AI SDK loop, through the real `@ai-sdk/anthropic` with
 * thinking, against the loopback Messages API (which refuses thinking signed over another
 * prefix). Many small calls with long ids: the reported usage crosses the threshold well before
 * the local estimate does, so the first loop compacts on its usage, and a later fresh look at
 * the loop's uncompacted history finds nothing to compact.
 */

const servers: MessagesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const CONTEXT_LIMIT = 6_000;
const CALLS_PER_TURN = 32;

const check = tool({
  description: "Checks a file",
  inputSchema: z.object({ f: z.string() }),
  execute: async () => "ok",
});

async function smallCallsStandIn(): Promise<{ server: MessagesApiServer; newTurn: () => void }> {
  let made = 0;
  let inTurn = 0;
  const server = await MessagesApiServer.start({
    onMessages: (request) => {
      made += 1;
      inTurn += 1;
      const usage = { input_tokens: roughTokens(request.body), output_tokens: 20 };
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
    response: ModelMessage[],
  ) => ModelMessage[],
) {
  const { server, newTurn } = await smallCallsStandIn();
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
    history = keep(prepareStep, messages, result.response.messages);
  }
  return { server, compactions };
}

describe("the history a compacting AI SDK loop leaves", () => {
  it("prepareStep.history(...) is what was sent: the next turn's thinking passes the signature check", async () => {
    const { server, compactions } = await twoTurns((prepareStep, _sent, response) =>
      prepareStep.history(response),
    );
    expect(compactions).toBeGreaterThan(0);
    expect(await refusals(server)).toEqual([]);
  });

  it("the loop's own messages are not: the next turn is refused (why history(...) exists)", async () => {
    await expect(
      twoTurns((_prepareStep, sent, response) => [...sent, ...response]),
    ).rejects.toThrow(/Invalid `signature` in `thinking` block/);
  });

  it("history(...) refuses a call before any step and response messages that cannot be the loop's", async () => {
    const prepareStep = compactionPrepareStep({ contextLimit: CONTEXT_LIMIT });
    expect(() => prepareStep.history([])).toThrow(/responseMessages: no step was prepared yet/);
    const messages: ModelMessage[] = [{ role: "user", content: "hi" }];
    await prepareStep({ steps: [], stepNumber: 0, messages });
    const reply: ModelMessage = { role: "assistant", content: "hello" };
    await prepareStep({ steps: [], stepNumber: 1, messages: [...messages, reply] });
    expect(() => prepareStep.history([])).toThrow(/responseMessages: must be the loop's/);
    expect(() => prepareStep.history("x" as never)).toThrow(/responseMessages: must be/);
    const last: ModelMessage = { role: "assistant", content: "bye" };
    expect(prepareStep.history([reply, last])).toEqual([...messages, reply, last]);
  });
});
