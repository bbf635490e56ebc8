import { generateText, type ModelMessage, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import {
  compactionMiddleware,
  compactionPrepareStep,
  compactModelMessages,
  fromModelMessages,
  toModelMessages,
} from "../../src/ai-sdk/index.js";
import {
  compactAnthropicMessages,
  fromAnthropicMessages,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import {
  compactChatMessages,
  fromChatMessages,
  toChatMessages,
} from "../../src/chat-completions/index.js";
import {
  compactGeminiContents,
  fromGeminiContents,
  toGeminiContents,
} from "../../src/gemini/index.js";
import {
  AgentSession,
  CompactionError,
  estimateTokens,
  LLMCompactor,
  type Message,
} from "../../src/index.js";
import {
  compactResponsesInput,
  fromResponsesInput,
  toResponsesInput,
} from "../../src/openai/index.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import type { CompactionArchive } from "../../src/store/index.js";
import { ConversationBuilder, MockLlmClient } from "../../src/testing/index.js";

// A summarizer's outage on a stateless path fails as it does in a session's run: the call does
// not reject for it, what masking did stands, the last resort still fits the request in the
// window, and the failure is reported (the result's `error`, or `onError`). Before, the helpers
// rejected and `prepareStep` and the middleware sent the step as it came, over the window.

const WINDOW = 8_000;

/** Turns of a request, reads of long files and a reply: far over {@link WINDOW}. */
function longRun(turns: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`Request ${turn}: ${"please keep the tests green, ".repeat(30)}`);
    builder.toolCall({
      name: "read_file",
      input: { path: `src/f${turn}.ts` },
      result: `// src/f${turn}.ts\n${"export const value = 1;\n".repeat(90)}`,
    });
    builder.assistant(`Done with request ${turn}: ${"all good. ".repeat(40)}`);
  }
  return builder.build();
}

/** A summarizer after masking whose every request fails (an outage). */
function failingSummarizer(): LLMCompactor {
  const client = new MockLlmClient();
  for (let index = 0; index < 20; index += 1) client.fail(new Error("529 overloaded"));
  return new LLMCompactor(client);
}

interface Helper {
  compact: (
    messages: readonly Message[],
    options: CompactMessagesOptions,
  ) => Promise<{ messages: unknown[]; compacted: boolean; error?: CompactionError }>;
  /** The estimate of what a call sent, read back as ours. */
  tokens: (sent: unknown[]) => number;
}

const HELPERS: Record<string, Helper> = {
  compactAnthropicMessages: {
    compact: (messages, options) =>
      compactAnthropicMessages(toAnthropicMessages(messages), options),
    tokens: (sent) => estimateTokens(fromAnthropicMessages(sent)),
  },
  compactResponsesInput: {
    compact: (messages, options) => compactResponsesInput(toResponsesInput(messages), options),
    tokens: (sent) => estimateTokens(fromResponsesInput(sent)),
  },
  compactGeminiContents: {
    compact: (messages, options) => compactGeminiContents(toGeminiContents(messages), options),
    tokens: (sent) => estimateTokens(fromGeminiContents(sent)),
  },
  compactChatMessages: {
    compact: (messages, options) => compactChatMessages(toChatMessages(messages), options),
    tokens: (sent) => estimateTokens(fromChatMessages(sent)),
  },
  compactModelMessages: {
    compact: (messages, options) => compactModelMessages(toModelMessages(messages), options),
    tokens: (sent) => estimateTokens(fromModelMessages(sent)),
  },
};

describe("a summarizer's outage on a one-call helper", () => {
  for (const [name, helper] of Object.entries(HELPERS)) {
    it(`${name}: resolves with the failure, the request inside the window`, async () => {
      const conversation = longRun(30);
      expect(estimateTokens(conversation)).toBeGreaterThan(3 * WINDOW);
      const outcome = await helper.compact(conversation, {
        contextLimit: WINDOW,
        llmCompactor: failingSummarizer(),
      });
      expect(CompactionError.isInstance(outcome.error)).toBe(true);
      expect(outcome.error?.code).toBe("llm_error");
      expect(outcome.compacted).toBe(true);
      expect(helper.tokens(outcome.messages)).toBeLessThanOrEqual(0.95 * WINDOW);
    });
  }

  it("as a session's run: the same failure, and the session's request the same size", async () => {
    const conversation = longRun(30);
    const session = new AgentSession({
      contextLimit: WINDOW,
      llmCompactor: failingSummarizer(),
    });
    session.append(...conversation);
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("llm_error");
    const helper = await compactModelMessages(toModelMessages(conversation), {
      contextLimit: WINDOW,
      llmCompactor: failingSummarizer(),
    });
    expect(helper.messages.length).toBe(session.messages.length);
  });

  it("the caller's abort still rejects (aborted)", async () => {
    const controller = new AbortController();
    const client = new MockLlmClient().hang();
    const pending = compactChatMessages(toChatMessages(longRun(30)), {
      contextLimit: WINDOW,
      llmCompactor: new LLMCompactor(client),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    const error = await pending.catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error)).toBe(true);
    expect((error as CompactionError).code).toBe("aborted");
  });
});

/**
 * A summarizer whose client does not pass `maxTokens` on: every reply about 40,000 tokens, far
 * over `maxSummaryTokens` (2048).
 */
function overlongSummarizer(): LLMCompactor {
  return new LLMCompactor(new MockLlmClient({ defaultReply: "summary ".repeat(20_000) }));
}

describe("a summary far over maxSummaryTokens on a stateless path (review 55b #5)", () => {
  // It was dropped as a summary that would not shrink the conversation, and nothing told the
  // caller: the same fallback as an outage, unreported. It fails as an outage does now.
  for (const [name, helper] of Object.entries(HELPERS)) {
    it(`${name}: resolves with summary_too_long, the request inside the window`, async () => {
      const outcome = await helper.compact(longRun(30), {
        contextLimit: WINDOW,
        llmCompactor: overlongSummarizer(),
      });
      expect(CompactionError.isInstance(outcome.error)).toBe(true);
      expect(outcome.error?.code).toBe("summary_too_long");
      expect(outcome.compacted).toBe(true);
      expect(helper.tokens(outcome.messages)).toBeLessThanOrEqual(0.95 * WINDOW);
    });
  }

  it("compactionPrepareStep tells onError", async () => {
    const errors: unknown[] = [];
    const prepare = compactionPrepareStep({
      contextLimit: WINDOW,
      llmCompactor: overlongSummarizer(),
      onError: (error) => errors.push(error),
    });
    const output = await prepare({
      steps: [],
      stepNumber: 0,
      messages: toModelMessages(longRun(30)),
    });
    expect(errors.map((error) => (error as CompactionError).code)).toEqual(["summary_too_long"]);
    expect(estimateTokens(fromModelMessages(output.messages ?? []))).toBeLessThanOrEqual(
      0.95 * WINDOW,
    );
  });

  it("compactionMiddleware tells onError", async () => {
    const errors: unknown[] = [];
    const wrapped = wrapLanguageModel({
      model: replyingModel([]),
      middleware: compactionMiddleware({
        contextLimit: WINDOW,
        llmCompactor: overlongSummarizer(),
        onError: (error) => errors.push(error),
      }),
    });
    await generateText({ model: wrapped, messages: toModelMessages(longRun(30)) });
    expect(errors.map((error) => (error as CompactionError).code)).toEqual(["summary_too_long"]);
  });
});

/** An archive whose every write fails (a store's outage); reads find nothing. */
const brokenArchive: CompactionArchive = {
  put: () => {
    throw new Error("ECONNREFUSED");
  },
  get: () => undefined,
};

describe("an archive's outage on a one-call helper", () => {
  // As in a session's run: nothing the compactors did applies (nothing is removed without its
  // record: no placeholder names a handle the archive never got), and the last resort still
  // fits the request in the window, without the archive. Before, the helpers rejected and
  // prepareStep and the middleware sent the request as it came, over the window.
  for (const [name, helper] of Object.entries(HELPERS)) {
    it(`${name}: resolves with the failure, the request inside the window`, async () => {
      const outcome = await helper.compact(longRun(30), {
        contextLimit: WINDOW,
        archive: brokenArchive,
      });
      expect(outcome.error?.code).toBe("archive_error");
      expect(outcome.compacted).toBe(true);
      expect(JSON.stringify(outcome.messages)).not.toContain("[recall ");
      expect(helper.tokens(outcome.messages)).toBeLessThanOrEqual(0.95 * WINDOW);
    });
  }

  it("a text the intake clamped keeps its cut, its marker naming no handle", async () => {
    const conversation = [
      ...longRun(30),
      ...new ConversationBuilder({ idPrefix: "late-" })
        .user(`Apply this patch: ${"+ line of the patch\n".repeat(1_200)}`)
        .build(),
    ];
    for (const [name, helper] of Object.entries(HELPERS)) {
      const outcome = await helper.compact(conversation, {
        contextLimit: WINDOW,
        archive: brokenArchive,
      });
      const text = JSON.stringify(outcome.messages);
      expect(outcome.error?.code, name).toBe("archive_error");
      expect(text, name).toContain("characters cut to fit the context window");
      expect(text, name).not.toContain("[recall ");
      expect(helper.tokens(outcome.messages), name).toBeLessThanOrEqual(0.95 * WINDOW);
    }
  });

  it("an archive's own `aborted` (not the caller's) is its failure, not a rejection", async () => {
    // A store archive refuses a handle that holds another record with `aborted`.
    const refusing: CompactionArchive = {
      put: () => {
        throw new CompactionError("aborted", "recall handle already holds another record");
      },
      get: () => undefined,
    };
    const outcome = await HELPERS["compactChatMessages"]!.compact(longRun(30), {
      contextLimit: WINDOW,
      archive: refusing,
    });
    expect(outcome.error?.code).toBe("aborted");
    expect(HELPERS["compactChatMessages"]!.tokens(outcome.messages)).toBeLessThanOrEqual(
      0.95 * WINDOW,
    );
  });

  it("compactionPrepareStep tells onError and sends the step inside the window", async () => {
    const errors: unknown[] = [];
    const prepare = compactionPrepareStep({
      contextLimit: WINDOW,
      archive: brokenArchive,
      onError: (error) => errors.push(error),
    });
    const output = await prepare({
      steps: [],
      stepNumber: 0,
      messages: toModelMessages(longRun(30)),
    });
    expect(errors.map((error) => (error as CompactionError).code)).toEqual(["archive_error"]);
    expect(output.messages).toBeDefined();
    expect(estimateTokens(fromModelMessages(output.messages ?? []))).toBeLessThanOrEqual(
      0.95 * WINDOW,
    );
  });
});

describe("a summarizer's outage in the AI SDK's loops", () => {
  it("compactionPrepareStep tells onError and sends the step inside the window", async () => {
    const errors: unknown[] = [];
    const prepare = compactionPrepareStep({
      contextLimit: WINDOW,
      llmCompactor: failingSummarizer(),
      onError: (error) => errors.push(error),
    });
    const messages = toModelMessages(longRun(30));
    const output = await prepare({ steps: [], stepNumber: 0, messages });
    expect(errors.map((error) => (error as CompactionError).code)).toEqual(["llm_error"]);
    expect(output.messages).toBeDefined();
    expect(estimateTokens(fromModelMessages(output.messages ?? []))).toBeLessThanOrEqual(
      0.95 * WINDOW,
    );
  });

  it("compactionMiddleware tells onError and sends the call inside the window", async () => {
    const errors: unknown[] = [];
    const prompts: number[] = [];
    const wrapped = wrapLanguageModel({
      model: replyingModel(prompts),
      middleware: compactionMiddleware({
        contextLimit: WINDOW,
        llmCompactor: failingSummarizer(),
        onError: (error) => errors.push(error),
      }),
    });
    const messages: ModelMessage[] = toModelMessages(longRun(30));
    await generateText({ model: wrapped, messages });
    expect(errors.map((error) => (error as CompactionError).code)).toEqual(["llm_error"]);
    expect(prompts).toHaveLength(1);
    // The prompt's JSON, a rough and generous count: the whole run would be over 3x the window.
    expect(prompts[0]).toBeLessThanOrEqual(WINDOW);
  });
});

/** A model that answers "ok", noting each prompt's rough size (its JSON over 4) in `prompts`. */
function replyingModel(prompts: number[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      prompts.push(Math.ceil(JSON.stringify(prompt).length / 4));
      return {
        content: [{ type: "text", text: "ok" }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}
