import Anthropic from "@anthropic-ai/sdk";
import type { ModelMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AI_SDK_KEY, fromModelMessages } from "../../src/ai-sdk/index.js";
import { toAnthropicMessages } from "../../src/anthropic/index.js";
import { BOOKKEEPING_KEYS, isBookkeepingKey } from "../../src/core/bookkeeping-keys.js";
import { fromResponsesInput, OPENAI_KEY } from "../../src/openai/index.js";
import { MessagesApiServer } from "../support/messages-api-server.js";

// Each adapter keeps what our blocks do not model under its own key (`aiSdk`, `openai`, and
// `key:…` on opaque blocks): bookkeeping for its own way back, never sent to another API.

/** Every key, at any depth, of a JSON value that is the library's bookkeeping. */
function bookkeepingKeys(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) bookkeepingKeys(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (isBookkeepingKey(key)) found.push(key);
      bookkeepingKeys(inner, found);
    }
  }
  return found;
}

const cacheControl = { anthropic: { cacheControl: { type: "ephemeral" } } };
const fromAiSdk = (): ModelMessage[] => [
  // Anthropic's compaction block, as the AI SDK's Anthropic provider gives it back.
  {
    role: "assistant",
    content: [
      {
        type: "text",
        text: "Summary of the earlier work.",
        providerOptions: { anthropic: { type: "compaction", signature: "sig-1" } },
      },
    ],
  },
  {
    role: "user",
    content: [{ type: "text", text: "Read a.ts", providerOptions: cacheControl }],
  },
  {
    role: "assistant",
    content: [
      {
        type: "tool-call",
        toolCallId: "call_1",
        toolName: "read",
        input: { path: "a.ts" },
        providerOptions: cacheControl,
      },
    ],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "call_1",
        toolName: "read",
        output: { type: "text", value: "export const a = 1;" },
      },
    ],
  },
];
const fromOpenAI = () =>
  fromResponsesInput([
    { type: "message", role: "user", content: [{ type: "input_text", text: "Read b.ts" }] },
    {
      type: "function_call",
      id: "fc_1",
      call_id: "call_2",
      name: "read",
      arguments: '{ "path": "b.ts" }',
      status: "completed",
    },
    { type: "function_call_output", call_id: "call_2", output: "export const b = 2;" },
    {
      type: "message",
      id: "msg_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Done.", annotations: [] }],
    },
  ]);

describe("toAnthropicMessages sends only the Messages API's fields", () => {
  let server: MessagesApiServer;
  let client: Anthropic;
  beforeAll(async () => {
    server = await MessagesApiServer.start();
    client = new Anthropic({ baseURL: server.url, apiKey: "sk-ant-test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("names each adapter's key in one table", () => {
    expect(AI_SDK_KEY).toBe(BOOKKEEPING_KEYS.aiSdk);
    expect(OPENAI_KEY).toBe(BOOKKEEPING_KEYS.openai);
  });

  it("leaves out the AI SDK adapter's and the OpenAI adapter's bookkeeping", async () => {
    const aiSdk = fromModelMessages(fromAiSdk());
    const openai = fromOpenAI();
    // The conversions carry their bookkeeping (so each gives its own input back)...
    expect(bookkeepingKeys(aiSdk)).toEqual(
      expect.arrayContaining(["aiSdk", "aiSdk:providerOptions"]),
    );
    expect(bookkeepingKeys(openai)).toContain("openai");
    for (const messages of [aiSdk, openai]) {
      const params = toAnthropicMessages(messages);
      // ...which never reaches the Messages API.
      expect(bookkeepingKeys(params)).toEqual([]);
      await client.messages.create({ model: "claude-test", max_tokens: 16, messages: params });
      expect(bookkeepingKeys(server.requests.at(-1)!.body)).toEqual([]);
    }
    // The compaction block goes out as the API wrote it; the text keeps no stray fields.
    expect(toAnthropicMessages(aiSdk)[0]).toEqual({
      role: "assistant",
      content: [
        { type: "compaction", content: "Summary of the earlier work.", signature: "sig-1" },
      ],
    });
    expect(toAnthropicMessages(openai)[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Read b.ts" }],
    });
  });
});
