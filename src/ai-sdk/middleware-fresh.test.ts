import {
  generateText,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from "ai";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { anthropicModel, THINKING } from "../../test/support/ai-sdk-providers.js";
import { MessagesApiServer, roughTokens } from "../../test/support/messages-api-server.js";
import { compactionMiddleware } from "./compaction-middleware.js";

/**
 * Review 55b's finding 1: a middleware made for each request (the README's, `sessionId:
 * chatId`), or after a restart, meets a history another compacted mid-loop, kept as AI SDK apps
 * keep it (`[...messages, ...response.messages]`): thinking signed over the compacted prefix.
 * Through the real `@ai-sdk/anthropic` against the loopback Messages API, which refuses
 * thinking signed over another prefix and a tool loop's last reply without its thinking.
 */

const servers: MessagesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A loopback Messages API whose model calls `check` until the user says "Thanks"; it counts `denser` times JSON/4. */
async function checkingServer(
  denser: number,
): Promise<{ server: MessagesApiServer; made: () => number }> {
  let made = 0;
  const server = await MessagesApiServer.start({
    onMessages: (request) => {
      made += 1;
      const input = Math.round(roughTokens(request.body) * denser);
      const usage = { input_tokens: input, output_tokens: 20 };
      if (JSON.stringify(request.body).includes("Thanks"))
        return { type: "message", text: "Sure.", usage };
      const id = `toolu_01${((made * 2_654_435_761) >>> 0).toString(36)}Xq9vLmZ3aB7`;
      const use = { type: "tool_use", id, name: "check", input: { f: `f${made}` } };
      return { type: "message", content: [use], stopReason: "tool_use", usage };
    },
  });
  servers.push(server);
  return { server, made: () => made };
}

const check = tool({ inputSchema: z.object({ f: z.string() }), execute: async () => "ok" });

/** Two turns, each through a middleware of its own (the README's, one per request). */
async function twoTurns(denser: number, steps: number, stream: boolean) {
  const { server, made } = await checkingServer(denser);
  const compactions: number[] = [];
  const request = async (messages: ModelMessage[], stopAfter: number) => {
    const options = {
      model: wrapLanguageModel({
        model: anthropicModel(server),
        middleware: compactionMiddleware({
          contextLimit: 6_000,
          onCompaction: () => compactions.push(made() + 1),
        }),
      }),
      tools: { check },
      maxRetries: 0,
      providerOptions: THINKING,
      messages,
      stopWhen: stepCountIs(stopAfter),
    };
    if (!stream) return generateText(options);
    const result = streamText({ ...options, onError: () => {} });
    return { text: await result.text, response: await result.response };
  };
  const history: ModelMessage[] = [{ role: "user", content: "Check every file." }];
  const first = await request(history, steps);
  history.push(...first.response.messages, { role: "user", content: "Thanks" });
  const second = await request(history, 1);
  return { compactions, text: second.text };
}

describe("a fresh compactionMiddleware on a history compacted mid-loop", () => {
  it("the next turn is accepted: stale thinking dropped, the loop's last exchange closed before the user's words", async () => {
    const { compactions, text } = await twoTurns(1, 33, false);
    expect(compactions.length).toBeGreaterThan(0);
    expect(text).toBe("Sure.");
  });

  it.each([false, true])(
    "where the provider counts 2x the estimate the fresh look compacts nothing, and the marked thinking goes (stream: %s)",
    async (stream) => {
      const { compactions, text } = await twoTurns(2, 24, stream);
      // The first turn compacted on its usage; the second, fresh, on the estimate: not at all.
      expect(compactions.length).toBe(1);
      expect(text).toBe("Sure.");
    },
  );
});
