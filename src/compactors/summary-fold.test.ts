import { describe, expect, it } from "vitest";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { isSummaryTurn } from "../core/turn.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { DEFAULT_LLM_COMPACTOR_OPTIONS, LLMCompactor } from "./llm-compactor.js";
import { foldIntoSummary, MIN_FOLD_GAIN_TOKENS, type Summarizer } from "./summary-fold.js";
import { summaryFramingTokens } from "./summary-message.js";

function summarizer(client: MockLlmClient, keepRecentTurns = 1): Summarizer {
  return { client, options: { ...DEFAULT_LLM_COMPACTOR_OPTIONS, keepRecentTurns } };
}

/** Two turns; the old one has a tool result of `resultChars` characters. */
function history(resultChars: number, answer = "read"): Message[] {
  return new ConversationBuilder()
    .user("read it")
    .toolCall({ name: "read", result: "r".repeat(resultChars) })
    .assistant(answer)
    .user("now")
    .build();
}

describe("foldIntoSummary", () => {
  it("writes the summary from `source` and folds the same messages of `conversation`", async () => {
    const source = history(2000, `read: ${"the file holds r's. ".repeat(20)}`);
    // What a masking pass would leave: the old tool result replaced by a notice.
    const conversation = source.map((message, index) =>
      index === 2
        ? {
            ...message,
            content: [{ ...(message.content[0] as object), content: "[masked]" }],
          }
        : message,
    ) as Message[];
    const client = new MockLlmClient().reply("read a file of r's");
    const output = await foldIntoSummary(summarizer(client), conversation, source, new Map(), {});
    expect(client.lastRequest?.prompt).toContain("rrrr");
    expect(client.lastRequest?.prompt).not.toContain("[masked]");
    expect(output.conversation.slice(1)).toEqual([conversation[4]]);
    expect(output.conversation[1]).toBe(conversation[4]);
    expect(output.result.turnsCompacted).toBe(1);
  });

  it("trusts its arguments: it does not validate them again", async () => {
    // Duplicate ids: `compactAsync` would refuse them, the trusted path does not look.
    const conversation = history(2000).map((message) => ({ ...message, id: "same" }));
    const output = await foldIntoSummary(
      summarizer(new MockLlmClient()),
      conversation,
      conversation,
      new Map(),
    );
    expect(isSummaryTurn(output.conversation[0]!.turnId)).toBe(true);
  });

  it("checks the signal before asking: an aborted one rejects and sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const client = new MockLlmClient();
    const conversation = history(2000);
    const error = await foldIntoSummary(summarizer(client), conversation, conversation, new Map(), {
      signal: controller.signal,
    }).catch((reason: unknown) => reason);
    expect(CompactionError.isInstance(error) && error.code).toBe("aborted");
    expect(client.callCount).toBe(0);
  });

  it(`asks for a summary only when the fold frees ${MIN_FOLD_GAIN_TOKENS} tokens or more before its text`, async () => {
    let asked = 0;
    let skipped = 0;
    for (let chars = 0; chars <= 200; chars += 4) {
      const client = new MockLlmClient().reply("s");
      const conversation = history(chars);
      const folded = conversation.slice(0, 4);
      const gain = estimateTokens(folded) - summaryFramingTokens(["read it"]);
      const output = await foldIntoSummary(
        summarizer(client),
        conversation,
        conversation,
        new Map(),
      );
      expect(client.callCount).toBe(gain >= MIN_FOLD_GAIN_TOKENS ? 1 : 0);
      if (client.callCount === 0) {
        skipped += 1;
        expect(output.skipReason).toMatch(/too small/);
        expect(output.conversation).toEqual(conversation);
      } else asked += 1;
    }
    // The range crosses the floor.
    expect(asked).toBeGreaterThan(0);
    expect(skipped).toBeGreaterThan(0);
  });
});

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
