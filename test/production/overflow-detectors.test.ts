import Anthropic from "@anthropic-ai/sdk";
import { APICallError, RetryError } from "ai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { isAiSdkContextOverflow } from "../../src/ai-sdk/overflow.js";
import { isAnthropicContextOverflow } from "../../src/anthropic/overflow.js";
import { isContextOverflowError } from "../../src/core/context-overflow.js";
import { isOpenAIContextOverflow } from "../../src/openai/overflow.js";
import { AnthropicStandIn } from "../../src/testing/anthropic-stand-in.js";

const headers = new Headers();
const anthropicError = (status: number, message: string, type = "invalid_request_error") =>
  Anthropic.APIError.generate(
    status,
    { type: "error", error: { type, message } },
    undefined,
    headers,
  );
const openaiError = (status: number, message: string, code: string | null) =>
  OpenAI.APIError.generate(
    status,
    { error: { message, type: "invalid_request_error", code, param: "input" } },
    undefined,
    headers,
  );
const aiSdkError = (statusCode: number, message: string, responseBody?: string) =>
  new APICallError({
    message,
    url: "https://api.example.com/v1/messages",
    requestBodyValues: {},
    statusCode,
    ...(responseBody === undefined ? {} : { responseBody }),
  });

const ANTHROPIC_TOO_LONG = "prompt is too long: 210512 tokens > 200000 maximum";
const ANTHROPIC_MAX_TOKENS =
  "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again";
const OPENAI_TOO_LONG =
  "Your input exceeds the context window of this model. Please adjust your input and try again.";

describe("isAnthropicContextOverflow", () => {
  it("recognizes the SDK's BadRequestError for both overflow messages", () => {
    const error = anthropicError(400, ANTHROPIC_TOO_LONG);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(isAnthropicContextOverflow(error)).toBe(true);
    expect(isAnthropicContextOverflow(anthropicError(400, ANTHROPIC_MAX_TOKENS))).toBe(true);
  });

  it("recognizes AnthropicStandIn's refusal", async () => {
    const client = new AnthropicStandIn({ contextWindow: 10 });
    const error = await client.messages
      .create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "x".repeat(400) }] })
      .catch((caught: unknown) => caught);
    expect(isAnthropicContextOverflow(error)).toBe(true);
  });

  it("refuses every other error", () => {
    expect(isAnthropicContextOverflow(anthropicError(400, "messages: roles must alternate"))).toBe(
      false,
    );
    expect(
      isAnthropicContextOverflow(anthropicError(429, ANTHROPIC_TOO_LONG, "rate_limit_error")),
    ).toBe(false);
    expect(isAnthropicContextOverflow(anthropicError(529, "Overloaded", "overloaded_error"))).toBe(
      false,
    );
    expect(
      isAnthropicContextOverflow(openaiError(400, OPENAI_TOO_LONG, "context_length_exceeded")),
    ).toBe(false);
    expect(isAnthropicContextOverflow(new Error(ANTHROPIC_TOO_LONG))).toBe(false); // no status
    for (const value of [undefined, null, "prompt is too long", 400, {}]) {
      expect(isAnthropicContextOverflow(value)).toBe(false);
    }
  });
});

describe("isOpenAIContextOverflow", () => {
  it("recognizes the SDK's 400 by its code or its message", () => {
    const error = openaiError(400, OPENAI_TOO_LONG, "context_length_exceeded");
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(isOpenAIContextOverflow(error)).toBe(true);
    expect(
      isOpenAIContextOverflow(
        openaiError(400, "This model's maximum context length is 128000 tokens.", null),
      ),
    ).toBe(true);
    // A failed response's error object (no status), as a streamed `response.failed` carries it.
    expect(
      isOpenAIContextOverflow({ code: "context_length_exceeded", message: OPENAI_TOO_LONG }),
    ).toBe(true);
  });

  it("refuses every other error", () => {
    expect(isOpenAIContextOverflow(openaiError(400, "Invalid 'input[3]'", "invalid_value"))).toBe(
      false,
    );
    expect(
      isOpenAIContextOverflow(openaiError(429, "Rate limit reached", "rate_limit_exceeded")),
    ).toBe(false);
    expect(isOpenAIContextOverflow(anthropicError(400, ANTHROPIC_TOO_LONG))).toBe(false);
    expect(isOpenAIContextOverflow(undefined)).toBe(false);
  });
});

describe("isAiSdkContextOverflow", () => {
  it("recognizes an APICallError from either provider, and inside a RetryError", () => {
    const anthropic = aiSdkError(400, ANTHROPIC_TOO_LONG);
    const openai = aiSdkError(400, OPENAI_TOO_LONG, '{"error":{"code":"context_length_exceeded"}}');
    expect(isAiSdkContextOverflow(anthropic)).toBe(true);
    expect(isAiSdkContextOverflow(openai)).toBe(true);
    const retried = new RetryError({
      message: "failed",
      reason: "errorNotRetryable",
      errors: [anthropic],
    });
    expect(isAiSdkContextOverflow(retried)).toBe(true);
  });

  it("refuses every other error, and a provider SDK's own error", () => {
    expect(isAiSdkContextOverflow(aiSdkError(400, "tools: invalid schema"))).toBe(false);
    expect(isAiSdkContextOverflow(aiSdkError(500, ANTHROPIC_TOO_LONG))).toBe(false);
    expect(isAiSdkContextOverflow(anthropicError(400, ANTHROPIC_TOO_LONG))).toBe(false);
    expect(isAiSdkContextOverflow(null)).toBe(false);
  });
});

describe("isContextOverflowError (the default)", () => {
  it("takes every provider's wording and reads only a bounded prefix", () => {
    expect(isContextOverflowError(anthropicError(400, ANTHROPIC_TOO_LONG))).toBe(true);
    expect(
      isContextOverflowError(openaiError(400, OPENAI_TOO_LONG, "context_length_exceeded")),
    ).toBe(true);
    expect(isContextOverflowError(aiSdkError(400, ANTHROPIC_TOO_LONG))).toBe(true);
    expect(isContextOverflowError(anthropicError(500, ANTHROPIC_TOO_LONG, "api_error"))).toBe(
      false,
    );
    const buried = { status: 400, message: `${"x".repeat(10_000)} prompt is too long` };
    expect(isContextOverflowError(buried)).toBe(false);
  });

  it("survives a hostile error whose getters throw", () => {
    const hostile = Object.defineProperty({ status: 400 }, "message", {
      get() {
        throw new Error("no");
      },
    });
    expect(isContextOverflowError(hostile)).toBe(false);
  });
});
