import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatCompletionsServer, roughTokens } from "../../test/support/chat-completions-server.js";
import { overfullSession } from "../../test/support/overfull-session.js";
import { withOverflowRecovery } from "../index.js";
import { toChatMessages } from "./chat-messages-out.js";
import { ChatCompletionsLlmClient } from "./llm-client.js";
import { isChatCompletionsContextOverflow } from "./overflow.js";

/** The SDK's error for a status and an error body, as it makes them from a response. */
const apiError = (status: number, error: Record<string, unknown>) =>
  OpenAI.APIError.generate(status, { error }, undefined, new Headers());

describe("isChatCompletionsContextOverflow", () => {
  it("knows each host's refusal for length", () => {
    const refusals = [
      // OpenAI, vLLM, DeepSeek and OpenRouter share the wording.
      {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
      {
        message:
          "This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens.",
      },
      // Groq and Cerebras: OpenAI's code, their own sentence.
      {
        message: "Please reduce the length of the messages or completion.",
        code: "context_length_exceeded",
      },
      // llama.cpp's server (Ollama runs it).
      {
        code: 400,
        message:
          "request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it",
        type: "exceed_context_size_error",
      },
      {
        message:
          "This model's maximum prompt length is 131072 but the request contains 150000 tokens.",
      },
      { message: "The prompt is too long: 40000, model maximum context length: 32768" },
    ];
    for (const error of refusals)
      expect(isChatCompletionsContextOverflow(apiError(400, error))).toBe(true);
  });

  it("is not fooled by other errors, nor by the words under another status", () => {
    expect(
      isChatCompletionsContextOverflow(apiError(400, { message: "Invalid value for 'content'." })),
    ).toBe(false);
    expect(
      isChatCompletionsContextOverflow(
        apiError(429, {
          message: "Request too large: maximum context length",
          code: "rate_limit_exceeded",
        }),
      ),
    ).toBe(false);
    expect(isChatCompletionsContextOverflow(new Error("maximum context length"))).toBe(true);
    expect(isChatCompletionsContextOverflow(undefined)).toBe(false);
    expect(isChatCompletionsContextOverflow("context_length_exceeded")).toBe(false);
  });
});

// The recovery through the real openai SDK: the loopback API enforces a window smaller than the
// session was told (a wrong contextLimit), refuses with context_length_exceeded, and the retry
// after the forced compaction is accepted; the summarizer's own requests fit.
describe("overflow recovery through the openai SDK and the loopback Chat Completions API", () => {
  const WINDOW = 6_000;
  let server: ChatCompletionsServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ChatCompletionsServer.start(
      () => ({ content: "Goal: review modules. Done: all." }),
      {
        contextWindow: WINDOW,
      },
    );
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("a context_length_exceeded refusal compacts the session, and the retry is accepted", async () => {
    const session = overfullSession(new ChatCompletionsLlmClient({ client, model: "llama-4" }));
    let attempts = 0;
    const completion = await withOverflowRecovery(
      session,
      () => {
        attempts += 1;
        return client.chat.completions.create({
          model: "llama-4",
          messages: toChatMessages(session.messages),
        });
      },
      { isOverflow: isChatCompletionsContextOverflow },
    );
    expect(completion.choices[0]?.message.content).toBe("Goal: review modules. Done: all.");
    expect(attempts).toBe(2);
    expect(server.refusals.map((refusal) => refusal.message)).toEqual(["context_length_exceeded"]);
    const sent = server.requests.slice(-2).map((request) => roughTokens(request.body["messages"]));
    for (const tokens of sent) expect(tokens).toBeLessThanOrEqual(WINDOW);
  });
});
