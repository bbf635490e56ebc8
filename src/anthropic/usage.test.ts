import type { Usage as AnthropicUsage } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { usageFromAnthropic } from "./usage.js";

const sdkUsage: AnthropicUsage = {
  input_tokens: 120,
  output_tokens: 30,
  cache_creation_input_tokens: 1000,
  cache_read_input_tokens: 5000,
  cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 0 },
  inference_geo: null,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: "standard",
} as AnthropicUsage;

describe("usageFromAnthropic", () => {
  it("maps every token field of an SDK usage", () => {
    expect(usageFromAnthropic(sdkUsage)).toEqual({
      inputTokens: 120,
      outputTokens: 30,
      cacheCreationInputTokens: 1000,
      cacheReadInputTokens: 5000,
    });
  });

  it("leaves null and missing cache fields out", () => {
    expect(
      usageFromAnthropic({
        input_tokens: 7,
        output_tokens: 0,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
      }),
    ).toEqual({ inputTokens: 7, outputTokens: 0 });
    expect(usageFromAnthropic({ input_tokens: 7 })).toEqual({ inputTokens: 7 });
  });

  it("is null-safe: no usage, or no input tokens (a streaming delta), gives undefined", () => {
    expect(usageFromAnthropic(null)).toBeUndefined();
    expect(usageFromAnthropic(undefined)).toBeUndefined();
    expect(usageFromAnthropic({ input_tokens: null, output_tokens: 12 })).toBeUndefined();
  });

  it("rejects a field that is not a whole number of tokens, naming it", () => {
    expect(() => usageFromAnthropic({ input_tokens: -1 })).toThrow(ValidationError);
    expect(() => usageFromAnthropic({ input_tokens: 1, output_tokens: "3" as never })).toThrow(
      /output_tokens/,
    );
    expect(() => usageFromAnthropic({ input_tokens: 1.5 })).toThrow(/input_tokens/);
    expect(() => usageFromAnthropic(42 as never)).toThrow(ValidationError);
  });
});
