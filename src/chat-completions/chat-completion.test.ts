import OpenAI from "openai";
import type { ChatCompletion } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { ChatCompletionsServer } from "../../test/support/chat-completions-server.js";
import { ValidationError } from "../core/errors.js";
import { AgentSession } from "../index.js";
import { appendChatCompletion } from "./chat-completion.js";
import { CHAT_REASONING_BLOCK_TYPE } from "./chat-fields.js";
import { toChatMessages } from "./chat-messages-out.js";
import { usageFromChatCompletion } from "./usage.js";

function completion(
  message: Record<string, unknown>,
  usage: ChatCompletion["usage"] = {
    prompt_tokens: 1_000,
    completion_tokens: 50,
    total_tokens: 1_050,
    prompt_tokens_details: { cached_tokens: 800 },
  },
): ChatCompletion {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 0,
    model: "gpt-5.6-luna",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        logprobs: null,
        message: {
          role: "assistant",
          refusal: null,
          ...message,
        } as ChatCompletion.Choice["message"],
      },
    ],
    usage,
  };
}

describe("appendChatCompletion", () => {
  it("appends the reply as one assistant message and records its usage, cached tokens apart", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Read a.ts");
    const reply = {
      content: "Reading.",
      reasoning_content: "The user wants a.ts.",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "read", arguments: '{"path":"a.ts"}' },
        },
      ],
    };
    const { message, usage } = appendChatCompletion(session, completion(reply));
    expect(message?.role).toBe("assistant");
    expect(message?.content.map((block) => block.type)).toEqual(["opaque", "text", "tool_use"]);
    expect(message?.content[0]).toEqual({
      type: "opaque",
      block: { type: CHAT_REASONING_BLOCK_TYPE, reasoning_content: "The user wants a.ts." },
    });
    expect(usage).toEqual({ inputTokens: 200, cacheReadInputTokens: 800, outputTokens: 50 });
    expect(session.contextUsed).toBeGreaterThanOrEqual(1_050);
    // What goes back is the reply as it came (the cookbook's `messages.push(message)`).
    expect(toChatMessages(session.messages)[1]).toEqual({
      role: "assistant",
      refusal: null,
      ...reply,
    });
  });

  it("appends nothing for a reply that says nothing, and still records the usage", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("hi");
    for (const content of [null, ""]) {
      const result = appendChatCompletion(session, completion({ content }));
      expect(result.message).toBeUndefined();
      expect(result.usage?.inputTokens).toBe(200);
    }
    expect(session.messages).toHaveLength(1);
    const refused = appendChatCompletion(
      session,
      completion({ content: null, refusal: "I can't." }),
    );
    // Its `content: null` read as the request takes it back, `""` (review 60f #2).
    expect(refused.message?.content).toEqual([
      { type: "text", text: "", extra: { chatCompletions: { content: "string" } } },
      { type: "text", text: "I can't.", extra: { chatCompletions: { refusal: "message" } } },
    ]);
    expect(appendChatCompletion(session, { choices: [] }).message).toBeUndefined();
  });

  it("sends a refusal back with content, which the API requires of a message without calls (review 60f #2)", async () => {
    const server = await ChatCompletionsServer.start(() => ({ content: "ok" }));
    try {
      const client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
      const session = new AgentSession({ contextLimit: 100_000 });
      session.addUserText("Write something you must refuse.");
      // OpenAI's refusal: no content, the refusal in its own field.
      appendChatCompletion(session, completion({ content: null, refusal: "I can't help." }));
      session.addUserText("Then something else.");
      const messages = toChatMessages(session.messages);
      expect(messages[1]).toEqual({ role: "assistant", content: "", refusal: "I can't help." });
      await client.chat.completions.create({ model: "gpt-6-luna", messages });
      expect(server.refusals).toEqual([]);
      // A legacy function call, an audio reply or calls may still go without content.
      const calls = [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }];
      appendChatCompletion(
        session,
        completion({ content: null, refusal: "No.", tool_calls: calls }),
      );
      expect(toChatMessages(session.messages).at(-1)).toMatchObject({ content: null });
    } finally {
      await server.close();
    }
  });

  it("appends a reply whose content is null when it said it by audio or a legacy function_call (review 54a #1)", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Say hello, with the answer");
    const audio = {
      id: "audio_abc",
      data: "UklGRiQAAABXQVZF",
      expires_at: 1_729_018_505,
      transcript: "Hello there! The answer is 42.",
    };
    const spoken = appendChatCompletion(
      session,
      completion({ content: null, annotations: [], audio }),
    );
    expect(spoken.message).toBeDefined();
    session.addUserText("And again?");
    const call = { name: "get_weather", arguments: '{"city":"Paris"}' };
    expect(
      appendChatCompletion(session, completion({ content: null, function_call: call })).message,
    ).toBeDefined();
    const sent = toChatMessages(session.messages);
    // The audio goes back as the request takes it: its id.
    expect(sent[1]).toMatchObject({ role: "assistant", audio: { id: "audio_abc" } });
    expect(JSON.stringify(sent[1])).not.toContain("UklGR");
    expect(sent[3]).toMatchObject({ role: "assistant", function_call: call });
    // A reply of nothing but empty fields still says nothing.
    expect(
      appendChatCompletion(session, completion({ content: null, annotations: [], audio: null }))
        .message,
    ).toBeUndefined();
  });

  it("names the path of a malformed reply, appending nothing", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("hi");
    const bad = completion({
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: 3 } }],
    });
    expect(() => appendChatCompletion(session, bad)).toThrow(ValidationError);
    expect(() => appendChatCompletion(session, bad)).toThrow(
      "choices[0].message.tool_calls[0].function.arguments",
    );
    expect(session.messages).toHaveLength(1);
  });
});

describe("usageFromChatCompletion", () => {
  it("takes cache reads and writes out of prompt_tokens, as each host reports them", () => {
    expect(usageFromChatCompletion({ prompt_tokens: 100, completion_tokens: 7 })).toEqual({
      inputTokens: 100,
      outputTokens: 7,
    });
    // OpenRouter: reads and writes, both inside prompt_tokens.
    expect(
      usageFromChatCompletion({
        prompt_tokens: 194,
        completion_tokens: 2,
        prompt_tokens_details: { cached_tokens: 50, cache_write_tokens: 100 },
      }),
    ).toEqual({
      inputTokens: 44,
      cacheReadInputTokens: 50,
      cacheCreationInputTokens: 100,
      outputTokens: 2,
    });
    // DeepSeek: prompt_cache_hit_tokens; Moonshot: a top-level cached_tokens.
    expect(usageFromChatCompletion({ prompt_tokens: 90, prompt_cache_hit_tokens: 60 })).toEqual({
      inputTokens: 30,
      cacheReadInputTokens: 60,
    });
    expect(usageFromChatCompletion({ prompt_tokens: 90, cached_tokens: 10 })).toEqual({
      inputTokens: 80,
      cacheReadInputTokens: 10,
    });
  });

  it("never counts more cached than prompt tokens; a count negative or fractional is refused", () => {
    expect(
      usageFromChatCompletion({
        prompt_tokens: 10,
        completion_tokens: 0,
        prompt_tokens_details: { cached_tokens: 50, cache_write_tokens: 9 },
      }),
    ).toEqual({ inputTokens: 0, cacheReadInputTokens: 10, outputTokens: 0 });
    expect(() =>
      usageFromChatCompletion({
        prompt_tokens: 10.7,
        completion_tokens: -3,
        prompt_tokens_details: { cached_tokens: 50, cache_write_tokens: 9 },
      }),
    ).toThrow(ValidationError);
    expect(usageFromChatCompletion(undefined)).toBeUndefined();
    expect(usageFromChatCompletion(null)).toBeUndefined();
    expect(usageFromChatCompletion({ completion_tokens: 3 })).toBeUndefined();
  });
});
