import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { MessagesApiServer } from "../support/messages-api-server.js";
import { messageParams } from "./arbitraries.js";

/**
 * The round trip on the wire: random valid `MessageParam[]` → ours → back → sent by the real
 * SDK; the JSON the server receives is the JSON of the original params.
 */

let server: MessagesApiServer;
let client: Anthropic;

beforeAll(async () => {
  server = await MessagesApiServer.start();
  client = new Anthropic({ baseURL: server.url, apiKey: "sk-ant-wire-0123456789", maxRetries: 0 });
});

afterAll(async () => {
  await server.close();
});

describe("round trip through the SDK", () => {
  it("sends exactly the messages it was given", async () => {
    await fc.assert(
      fc.asyncProperty(messageParams, async (params) => {
        const messages = fromAnthropicMessages(params);
        await client.messages.create({
          model: "claude-test",
          max_tokens: 16,
          messages: toAnthropicMessages(messages),
        });
        const sent = server.requests.at(-1)!.body as { messages: unknown };
        expect(sent.messages).toEqual(JSON.parse(JSON.stringify(params)));
        // The count endpoint gets the same messages.
        await client.messages.countTokens({
          model: "claude-test",
          messages: toAnthropicMessages(messages),
        });
        expect((server.requests.at(-1)!.body as { messages: unknown }).messages).toEqual(
          sent.messages,
        );
      }),
      { seed: 424242, numRuns: 40 },
    );
  });
});
