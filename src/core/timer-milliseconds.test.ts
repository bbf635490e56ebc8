import { describe, expect, it } from "vitest";
import { AnthropicCompactor } from "../anthropic/anthropic-compactor.js";
import { HybridCompactor } from "../compactors/hybrid-compactor.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { MemoryStore } from "../store/memory-store.js";
import { openSession } from "../store/stored-session.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { MAX_TIMER_MS } from "./abort.js";
import { ValidationError } from "./errors.js";

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
