import { describe, expect, it } from "vitest";
import { AnthropicCompactor } from "../../src/anthropic/anthropic-compactor.js";
import { HybridCompactor } from "../../src/compactors/hybrid-compactor.js";
import { LLMCompactor } from "../../src/compactors/llm-compactor.js";
import { MAX_TIMER_MS } from "../../src/core/abort.js";
import { ValidationError } from "../../src/core/errors.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { openSession } from "../../src/store/stored-session.js";
import { MockLlmClient } from "../../src/testing/mock-llm-client.js";

const TOO_LONG = MAX_TIMER_MS + 1;
const anthropicClient = { beta: { messages: { create: () => Promise.resolve({}) } } };

/** The field named by the ValidationError `build` throws. */
function refusedField(build: () => unknown): string | undefined {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues[0]?.path.join(".");
  }
  return undefined;
}

describe("every millisecond option is refused above 2^31-1 (the longest timer delay)", () => {
  it("LLMCompactor summaryTimeoutMs", () => {
    const client = new MockLlmClient();
    expect(refusedField(() => new LLMCompactor(client, { summaryTimeoutMs: TOO_LONG }))).toBe(
      "summaryTimeoutMs",
    );
    expect(
      new LLMCompactor(client, { summaryTimeoutMs: MAX_TIMER_MS }).config.summaryTimeoutMs,
    ).toBe(MAX_TIMER_MS);
  });

  it("HybridCompactor summaryTimeoutMs", () => {
    const client = new MockLlmClient();
    expect(refusedField(() => new HybridCompactor({ client, summaryTimeoutMs: TOO_LONG }))).toBe(
      "summaryTimeoutMs",
    );
    expect(
      new HybridCompactor({ client, summaryTimeoutMs: MAX_TIMER_MS }).config.summaryTimeoutMs,
    ).toBe(MAX_TIMER_MS);
  });

  it("AnthropicCompactor timeoutMs", () => {
    const options = { client: anthropicClient, model: "claude-fable-5-1" };
    expect(refusedField(() => new AnthropicCompactor({ ...options, timeoutMs: TOO_LONG }))).toBe(
      "timeoutMs",
    );
    expect(new AnthropicCompactor({ ...options, timeoutMs: MAX_TIMER_MS }).config.timeoutMs).toBe(
      MAX_TIMER_MS,
    );
  });

  it("StoredSession leaseMs", async () => {
    const store = new MemoryStore();
    const error = await openSession(store, "s", { contextLimit: 1000, leaseMs: TOO_LONG }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]?.path).toEqual(["leaseMs"]);
    await expect(
      openSession(store, "s", { contextLimit: 1000, leaseMs: MAX_TIMER_MS }),
    ).resolves.toBeDefined();
  });
});
