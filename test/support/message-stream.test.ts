import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagesApiServer } from "./messages-api-server.js";

/** The loopback Messages API streams (`stream: true`) the message it would have answered with. */
describe("the loopback Messages API's streaming", () => {
  let server: MessagesApiServer;
  beforeAll(async () => {
    server = await MessagesApiServer.start({
      onMessages: {
        type: "message",
        content: [
          { type: "text", text: "Reading it." },
          {
            type: "tool_use",
            id: "toolu_1",
            name: "read",
            input: { path: "a.ts" },
            caller: { type: "direct" },
          },
        ],
        stopReason: "tool_use",
      },
    });
  });
  afterAll(() => server.close());

  it("gives the real SDK's stream the same message as the plain request, thinking signed", async () => {
    const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    const request = {
      model: "claude-sonnet-5-5",
      max_tokens: 1024,
      thinking: { type: "adaptive" as const },
      messages: [{ role: "user" as const, content: "Read a.ts" }],
    };
    const plain = await client.messages.create(request);
    const streamed = await client.messages.stream(request).finalMessage();
    expect(streamed.content).toEqual(plain.content);
    expect(streamed.stop_reason).toBe("tool_use");
    expect(streamed.usage.output_tokens).toBe(plain.usage.output_tokens);
    expect(streamed.content[0]).toMatchObject({ type: "thinking", signature: expect.any(String) });
    const [, , call] = streamed.content;
    expect(call).toMatchObject({
      type: "tool_use",
      input: { path: "a.ts" },
      caller: { type: "direct" },
    });
    const streamedBody = server.requestsTo("messages").at(-1)!.body as { stream?: boolean };
    expect(streamedBody.stream).toBe(true);
  });
});
