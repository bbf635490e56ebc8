import { describe, expect, it } from "vitest";
import { CompactionError, ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { AgentSession } from "../session/agent-session.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { HybridCompactor } from "./hybrid-compactor.js";
import { LLMCompactor } from "./llm-compactor.js";

/** Three turns, each with a long tool result, then a fresh request. */
function history(resultChars = 3000): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= 3; turn += 1) {
    builder
      .user(`task ${turn}: read file-${turn}.ts`)
      .toolCall({
        name: "read",
        input: { path: `file-${turn}.ts` },
        result: "r".repeat(resultChars),
      })
      .assistant(`read file-${turn}.ts`);
  }
  return builder.user("now fix it").build();
}

/** Two turns that each read a 3,000-character file, the second still at its read. */
function twoReads(): ConversationBuilder {
  return new ConversationBuilder()
    .user("first")
    .toolCall({ name: "read", result: "r".repeat(3000) })
    .assistant("done")
    .user("second")
    .toolCall({ name: "read", result: "s".repeat(3000) });
}

/** The same message objects, in the same order: nothing rebuilt, nothing masked. */
function expectSameMessages(
  sent: readonly Message[] | undefined,
  expected: readonly Message[],
): void {
  expect(sent).toHaveLength(expected.length);
  for (const [index, message] of (sent ?? []).entries()) expect(message).toBe(expected[index]);
}

const USAGE = {
  inputTokens: 120,
  outputTokens: 30,
  cacheReadInputTokens: 900,
  cacheCreationInputTokens: 0,
};

describe("summary usage", () => {
  it("reports the client's usage in the result, summed over every request of a chunked summary", async () => {
    const single = new MockLlmClient().reply({ text: "summary", usage: USAGE });
    const one = await new LLMCompactor(single, { keepRecentTurns: 1 }).compactAsync(
      history(),
      new Map(),
    );
    expect(one.result.usage).toEqual(USAGE);

    const chunked = new MockLlmClient({
      defaultReply: () => ({ text: "part", usage: { inputTokens: 10, outputTokens: 2 } }),
    });
    const many = await new LLMCompactor(chunked, {
      keepRecentTurns: 1,
      maxTranscriptTokens: 1200,
    }).compactAsync(history(), new Map());
    expect(chunked.callCount).toBeGreaterThan(2);
    // No request reported a cache count, so the sum has none (addUsage: absent counts 0).
    expect(many.result.usage).toEqual({
      inputTokens: 10 * chunked.callCount,
      outputTokens: 2 * chunked.callCount,
    });
  });

  it("reports no usage when the client returns plain text", async () => {
    const { result } = await new LLMCompactor(new MockLlmClient(), {
      keepRecentTurns: 1,
    }).compactAsync(history(), new Map());
    expect(result.turnsCompacted).toBe(3);
    expect(result.usage).toBeUndefined();
  });

  it("fails with llm_error, the ValidationError as cause, for usage that is not whole numbers ≥ 0", async () => {
    for (const bad of [Number.POSITIVE_INFINITY, -1, 2.5, Number.NaN, "7"]) {
      const client = new MockLlmClient().reply({
        text: "summary",
        usage: { ...USAGE, cacheReadInputTokens: bad as number },
      });
      const error = await new LLMCompactor(client, { keepRecentTurns: 1 })
        .compactAsync(history(), new Map())
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CompactionError);
      expect((error as CompactionError).code).toBe("llm_error");
      expect((error as CompactionError).message).toMatch(/cacheReadInputTokens/);
      expect((error as CompactionError).cause).toBeInstanceOf(ValidationError);
    }
  });

  it("fails with llm_error for a reply that is neither a string nor { text }", async () => {
    const client = new MockLlmClient({ defaultReply: () => ({ summary: "x" }) as never });
    await expect(
      new LLMCompactor(client, { keepRecentTurns: 1 }).compactAsync(history(), new Map()),
    ).rejects.toMatchObject({ code: "llm_error" });
  });

  it("carries the summary's usage through HybridCompactor", async () => {
    const client = new MockLlmClient().reply({ text: "summary", usage: USAGE });
    const { result } = await new HybridCompactor({ client, keepRecentTurns: 1 }).compactAsync(
      history(),
      new Map(),
      { trigger: "manual" },
    );
    expect(result.usage).toEqual(USAGE);
  });
});

describe("a summary request that sends the conversation", () => {
  it("sends the conversation's own messages, unchanged, with the instruction as the prompt", async () => {
    const conversation = history();
    const client = new MockLlmClient({ acceptsConversation: true });
    const output = await new LLMCompactor(client, { keepRecentTurns: 1 }).compactAsync(
      conversation,
      new Map(),
      { contextLimit: 200_000, contextUsed: 3000, instructions: "Keep the file names." },
    );
    expect(client.callCount).toBe(1);
    const request = client.lastRequest!;
    expectSameMessages(request.conversation, conversation);
    expect(request.system).toBeUndefined();
    expect(request.prompt).toMatch(/^\[Summary request from the context manager/);
    expect(request.prompt).toContain('up to the user message that begins "now fix it"');
    expect(request.prompt).toContain("## Goal and constraints");
    expect(request.prompt).toContain("Keep the file names.");
    expect(request.prompt).not.toContain("<conversation>");
    expect(output.result.turnsCompacted).toBe(3);
  });

  it("leaves out an open tool call at the end (nothing may follow it but its results)", async () => {
    const conversation = twoReads().assistant("done").user("third").build();
    const open: Message = {
      ...conversation.at(-1)!,
      id: "open",
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_open", name: "read", input: {} }],
    } as Message;
    const client = new MockLlmClient({ acceptsConversation: true });
    await new LLMCompactor(client, { keepRecentTurns: 1 }).compactAsync(
      [...conversation, open],
      new Map(),
      { contextLimit: 200_000 },
    );
    expect(client.lastRequest?.conversation).toEqual(conversation);
  });

  it("ends before the latest reply when the fold ends before it: what was appended since was never sent", async () => {
    const conversation = twoReads().build();
    const lastReply = conversation.findLastIndex((message) => message.role === "assistant");
    const client = new MockLlmClient({ acceptsConversation: true });
    const output = await new LLMCompactor(client, { keepRecentTurns: 1 }).compactAsync(
      conversation,
      new Map(),
      { contextLimit: 200_000 },
    );
    expectSameMessages(client.lastRequest?.conversation, conversation.slice(0, lastReply));
    expect(client.lastRequest?.prompt).toContain('up to the user message that begins "second"');
    expect(output.conversation.slice(-3)).toEqual(conversation.slice(-3));
  });

  it("falls back to the transcript when the conversation would not fit the window with the summary", async () => {
    const client = new MockLlmClient({ acceptsConversation: true });
    await new LLMCompactor(client, { keepRecentTurns: 1 }).compactAsync(history(), new Map(), {
      contextLimit: 4000,
      contextUsed: 3000,
    });
    expect(client.lastRequest?.conversation).toBeUndefined();
    expect(client.lastRequest?.prompt).toContain("<conversation>");
  });

  it("sends a transcript to a client that does not take the conversation", async () => {
    const client = new MockLlmClient();
    await new LLMCompactor(client, { keepRecentTurns: 1 }).compactAsync(history(), new Map(), {
      contextLimit: 200_000,
    });
    expect(client.lastRequest?.conversation).toBeUndefined();
    expect(client.lastRequest?.system).toContain("## Goal and constraints");
  });

  it("gives the hybrid's summarizer the conversation before masking (what the agent sent)", async () => {
    const conversation = history(8000);
    const client = new MockLlmClient({ acceptsConversation: true });
    await new HybridCompactor({ client, keepRecentTurns: 1 }).compactAsync(
      conversation,
      new Map(),
      {
        trigger: "manual",
        contextLimit: 200_000,
      },
    );
    expectSameMessages(client.lastRequest?.conversation, conversation);
  });
});

describe("a summary far over its budget that would still shrink the conversation (review 54c L2)", () => {
  it("fails with summary_too_long: not kept whole, the request still inside the window", async () => {
    // A client that does not pass maxTokens on: about 12k tokens for a budget of 2048. Kept
    // whole, it held 73% of the 20k window and every second step paid for another summary.
    const client = new MockLlmClient({ defaultReply: `Summary. ${"detail ".repeat(6_900)}` });
    const session = new AgentSession({
      contextLimit: 20_000,
      llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1, maxSummaryTokens: 2048 }),
    });
    for (let step = 0; step < 12; step += 1) {
      session.addUserText(`Step ${step}: fix module ${step}.`);
      session.addAssistant([{ type: "text", text: `fixed ${step} ${"x".repeat(6_000)}` }]);
    }
    session.recordUsage({ inputTokens: 20_500 });
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("summary_too_long");
    expect(session.messages.some((message) => message.generated === "summary")).toBe(false);
    expect(session.contextUsed).toBeLessThanOrEqual(20_000);
  });
});
