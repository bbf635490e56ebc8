// One rule, one schema, one wording: the same bad option reads the same in every entry that takes it.
import { describe, expect, it } from "vitest";
import { AiSdkLlmClient } from "../ai-sdk/llm-client.js";
import { AnthropicLlmClient } from "../anthropic/llm-client.js";
import { ChatCompletionsLlmClient } from "../chat-completions/llm-client.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import { FileStore } from "../file-store/file-store.js";
import { GeminiLlmClient } from "../gemini/llm-client.js";
import { compactionMiddleware } from "../langchain/compaction-middleware.js";
import { OpenAILlmClient } from "../openai/llm-client.js";
import { AgentSession } from "../session/agent-session.js";
import { MemoryStore } from "../store/memory-store.js";
import { openSession } from "../store/stored-session.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { ValidationError } from "./errors.js";

/** The message of the one issue `build` is refused for, at `field`. */
function refusal(build: () => unknown, field: string): string | undefined {
  try {
    build();
  } catch (error) {
    expect(ValidationError.isInstance(error)).toBe(true);
    const issue = (error as ValidationError).issues.find((each) => each.path.join(".") === field);
    return issue?.message;
  }
  return undefined;
}

const client = new MockLlmClient();
const anthropic = { messages: { create: () => Promise.resolve({}) } };
const openai = { responses: { create: () => Promise.resolve({}) } };
const chat = { chat: { completions: { create: () => Promise.resolve({}) } } };
const gemini = { models: { generateContent: () => Promise.resolve({}) } };

describe("one wording per rule", () => {
  it("a token budget that is not a whole number above 0", () => {
    const messages = [
      refusal(
        () => new OpenAILlmClient({ client: openai, model: "m", maxOutputTokens: 0 } as never),
        "maxOutputTokens",
      ),
      refusal(() => new AiSdkLlmClient({ model: "m", maxOutputTokens: 1.5 }), "maxOutputTokens"),
      refusal(
        () => new AnthropicLlmClient({ client: anthropic, model: "m", maxTokens: -1 } as never),
        "maxTokens",
      ),
      refusal(
        () => new ChatCompletionsLlmClient({ client: chat, model: "m", maxTokens: 0 } as never),
        "maxTokens",
      ),
      refusal(
        () => new GeminiLlmClient({ client: gemini, model: "m", maxOutputTokens: 0 } as never),
        "maxOutputTokens",
      ),
      refusal(() => new LLMCompactor(client, { maxSummaryTokens: 0 }), "maxSummaryTokens"),
      refusal(() => compactionMiddleware({ contextLimit: 1000, maxThreads: 0 }), "maxThreads"),
    ];
    expect(messages).toEqual(messages.map(() => "must be a whole number above 0"));
  });

  it("a millisecond option above the longest timer", async () => {
    const tooLong = 2 ** 31;
    const messages = [
      refusal(() => new FileStore({ directory: "d", staleLockMs: tooLong }), "staleLockMs"),
      refusal(() => new LLMCompactor(client, { summaryTimeoutMs: tooLong }), "summaryTimeoutMs"),
      refusal(
        () => new AgentSession({ contextLimit: 1000, hookTimeoutMs: tooLong }),
        "hookTimeoutMs",
      ),
    ];
    const stored = await openSession(new MemoryStore(), "s", {
      contextLimit: 1000,
      leaseMs: tooLong,
    }).catch((error: ValidationError) => error.issues[0]?.message);
    expect([...messages, stored]).toEqual(
      [...messages, stored].map(() => "must be at most 2147483647 ms (the longest timer delay)"),
    );
  });

  it("a clock that is not a function", () => {
    const messages = [
      refusal(() => new FileStore({ directory: "d", clock: 5 as never }), "clock"),
      refusal(() => new AgentSession({ contextLimit: 1000, clock: 5 as never }), "clock"),
      refusal(() => new ThresholdCompactor({ clock: 5 as never }), "clock"),
      refusal(() => new LLMCompactor(client, { clock: 5 as never }), "clock"),
    ];
    expect(messages).toEqual(messages.map(() => "must be a function returning a Date"));
  });

  it("an LlmClient without complete", () => {
    expect(refusal(() => new LLMCompactor({} as never), "client")).toBe(
      "must be an LlmClient (with complete)",
    );
  });
});
