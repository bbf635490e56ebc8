import { SystemMessage } from "@langchain/core/messages";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatCompletionsServer } from "../../test/support/chat-completions-server.js";
import { aroundSystem } from "../../test/support/foreign-conversations.js";
import { fromModelMessages } from "../ai-sdk/model-messages.js";
import { fromAnthropicMessages } from "../anthropic/turns.js";
import { BOOKKEEPING_KEYS } from "../core/bookkeeping-keys.js";
import type { Message } from "../core/message.js";
import { fromLangChainMessages } from "../langchain/messages-in.js";
import { fromResponsesInput } from "../openai/responses-input.js";
import { fromChatMessages } from "./chat-messages-in.js";
import { toChatMessages } from "./chat-messages-out.js";

// A system message another adapter read (mid-conversation, carried whole) went to Chat
// Completions verbatim: a Responses `developer` item (`type: "message"`, `input_text` parts),
// the AI SDK's `providerOptions`, LangChain's `id` and `additional_kwargs`. The API refuses each
// (a part type it does not know; "Unknown parameter", as strict hosts refuse a message's field
// too): the loopback API's rule 12 found it (review 58e #2).

describe("a system message another adapter read, sent to Chat Completions", () => {
  let server: ChatCompletionsServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ChatCompletionsServer.start(() => ({ content: "Step two." }));
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  const send = (messages: ChatCompletionMessageParam[]) =>
    client.chat.completions.create({ model: "gpt-5", messages });

  it("goes as a chat system or developer message of its text, which the API takes", async () => {
    const read: [string, Message[], ChatCompletionMessageParam][] = [
      [
        "Responses",
        fromResponsesInput([
          {
            type: "message",
            role: "developer",
            content: [
              { type: "input_text", text: "Be brief." },
              { type: "input_text", text: "Cite files." },
            ],
          },
        ]),
        { role: "developer", content: "Be brief.\nCite files." },
      ],
      [
        "AI SDK",
        fromModelMessages([
          {
            role: "system",
            content: "Be brief.",
            providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
          },
        ]),
        { role: "system", content: "Be brief." },
      ],
      [
        "LangChain",
        fromLangChainMessages([
          new SystemMessage({ content: "Be brief.", id: "s1", additional_kwargs: { seen: 1 } }),
        ]),
        { role: "system", content: "Be brief." },
      ],
      [
        "Anthropic",
        fromAnthropicMessages([
          { role: "user", content: "a" },
          { role: "assistant", content: "b" },
          { role: "system", content: [{ type: "text", text: "Be brief." }] },
          { role: "user", content: "c" },
        ] as never).slice(2, 3),
        { role: "system", content: [{ type: "text", text: "Be brief." }] },
      ],
    ];
    for (const [format, system, written] of read) {
      const messages = toChatMessages(aroundSystem(system));
      expect([format, messages[2]]).toEqual([format, written]);
      const completion = await send(messages);
      expect(completion.choices[0]?.message.content).toBe("Step two.");
    }
    expect(server.refusals).toEqual([]);
  });

  it("goes as it came when it is a chat message, less the library's bookkeeping", async () => {
    const own = { role: "system" as const, content: "Be brief.", name: "rules" };
    const system = fromChatMessages([own]);
    expect(toChatMessages(aroundSystem(system))[2]).toEqual(own);
    const block = system[0]!.content[0]!;
    const marked = {
      ...system[0]!,
      content: [
        {
          ...block,
          block: {
            ...(block as { block: object }).block,
            message: { ...own, [`${BOOKKEEPING_KEYS.aiSdk}:x`]: 1 },
          },
        },
      ],
    } as Message;
    const messages = toChatMessages(aroundSystem([marked]));
    expect(messages[2]).toEqual(own);
    await send(messages);
    expect(server.refusals).toEqual([]);
  });
});
