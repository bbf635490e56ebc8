import { describe, expect, it } from "vitest";
import { CompactionError, LLMCompactor } from "../../src/index.js";
import { ConversationBuilder, MockLlmClient } from "../../src/testing/index.js";

// LLMCompactor with a client that takes the conversation: when the provider refuses that
// request as too long, the summary is written from the transcript instead; any other failure
// of it is the compaction's failure, as before.

const tooLong = () =>
  Object.assign(new Error("400 prompt is too long"), {
    status: 400,
    apiMessage: "prompt is too long: 9000 tokens > 8000 maximum",
  });

function conversation() {
  const builder = new ConversationBuilder();
  for (let index = 0; index < 5; index += 1) {
    builder.user(`Task ${index}`).assistant(`Done with task ${index}: ${"detail ".repeat(200)}`);
  }
  return builder.build();
}

describe("LLMCompactor: a conversation summary refused as too long", () => {
  it("is written from the transcript instead", async () => {
    const client = new MockLlmClient({ acceptsConversation: true }).fail(tooLong()).reply("S");
    const compactor = new LLMCompactor(client, { keepRecentTurns: 1 });
    const output = await compactor.compactAsync(conversation(), new Map(), {
      contextLimit: 100_000,
    });
    expect(output.result.turnsCompacted).toBeGreaterThan(0);
    expect(client.requests).toHaveLength(2);
    expect(client.requests[0]?.conversation).toBeDefined();
    expect(client.requests[1]?.conversation).toBeUndefined();
  });

  it("fails as before for any other error, with no second request", async () => {
    const overloaded = Object.assign(new Error("529 overloaded"), { status: 529 });
    const client = new MockLlmClient({ acceptsConversation: true }).fail(overloaded).reply("S");
    const compactor = new LLMCompactor(client, { keepRecentTurns: 1 });
    const error = await compactor
      .compactAsync(conversation(), new Map(), { contextLimit: 100_000 })
      .catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error) && error.code).toBe("llm_error");
    expect((error as CompactionError).cause).toBe(overloaded);
    expect(client.requests).toHaveLength(1);
  });
});
