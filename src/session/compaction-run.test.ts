import { describe, expect, it } from "vitest";
import { gate, holdingHook } from "../../test/support/gate.js";
import { history } from "../../test/support/session-history.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { CompactionOutput, CompactionResult, Compactor } from "../core/compactor.js";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { AgentSession } from "./agent-session.js";
import type { CompactionEvent } from "./events.js";

/** A custom compactor that drops the first turn's messages and reports no counter at all. */
function droppingCompactor(): Compactor {
  return {
    isAsync: false,
    shouldCompact: () => true,
    compact(conversation): CompactionOutput {
      const first = conversation[0]?.turnId.number;
      return {
        conversation: conversation.filter((message) => message.turnId.number !== first),
        result: { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 },
      };
    },
  };
}

/** A custom compactor that returns its input unchanged, claiming `result`. */
function unchangedCompactor(result: CompactionResult, skipReason?: string): Compactor {
  return {
    isAsync: false,
    shouldCompact: () => true,
    compact: (conversation) => ({
      conversation: [...conversation],
      result,
      ...(skipReason === undefined ? {} : { skipReason }),
    }),
  };
}

describe("the stage loop: one definition of changed", () => {
  it("applies a custom compactor's conversation whatever its counters say, in maybeCompact and forceCompact alike", async () => {
    for (const run of ["auto", "manual"] as const) {
      const events: CompactionEvent[] = [];
      const session = new AgentSession({
        // A window the messages fit: the custom compactor runs (its shouldCompact always holds)
        // and nothing else does.
        contextLimit: 100_000,
        compactor: droppingCompactor(),
        onEvent: (event) => events.push(event),
      });
      session.append(...history(3));
      if (run === "auto") expect((await session.maybeCompact()).compacted).toBe(true);
      else await session.forceCompact();
      expect(session.messages.map((message) => message.turnId.number)).not.toContain(1);
      expect(session.messages).toHaveLength(8);
      expect(events.map((event) => event.type)).toEqual(["compaction_end"]);
    }
  });

  it("reports a compactor that changed nothing as a skip with its reason, never an end", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 100_000,
      trimOnOverflow: false,
      compactor: unchangedCompactor(
        { toolResultsSummarized: 5, toolResultsRedacted: 0, turnsCompacted: 0 },
        "nothing old enough",
      ),
      onEvent: (event) => events.push(event),
    });
    session.append(...history(2));
    const before = session.messages;
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(false);
    expect(report.boundaries).toEqual([]);
    expect(session.messages).toBe(before);
    expect(events).toEqual([
      {
        type: "compaction_skipped",
        trigger: "auto",
        strategy: "custom",
        reason: "nothing_to_compact",
        detail: "nothing old enough",
      },
    ]);
  });

  it("counts nothing for a compactor that changed nothing, whatever its counters say", async () => {
    const session = new AgentSession({
      contextLimit: 100_000,
      trimOnOverflow: false,
      compactor: unchangedCompactor({
        toolResultsSummarized: 5,
        toolResultsRedacted: 1,
        turnsCompacted: 2,
      }),
    });
    session.append(...history(2));
    const report = await session.maybeCompact();
    expect(report.results).toEqual([
      {
        strategy: "custom",
        result: expect.objectContaining({
          toolResultsSummarized: 0,
          toolResultsRedacted: 0,
          turnsCompacted: 0,
        }),
      },
    ]);
    const forced = await session.forceCompact();
    expect(forced).toMatchObject({
      toolResultsSummarized: 0,
      toolResultsRedacted: 0,
      turnsCompacted: 0,
      boundaries: [],
    });
    expect(forced.tokensAfter).toBe(forced.tokensBefore);
  });

  it("leaves the recorded usage alone when forceCompact changes nothing", async () => {
    const session = new AgentSession({ contextLimit: 100_000, compactor: false });
    session.append(...history(2));
    session.recordUsage({ inputTokens: 1010 });
    expect(session.contextUsed).toBe(1010);
    const result = await session.forceCompact();
    expect(result.boundaries).toEqual([]);
    expect(session.contextUsed).toBe(1010);

    const masking = new AgentSession({ contextLimit: 100_000 });
    masking.append(...history(1));
    masking.recordUsage({ inputTokens: 1010 });
    await masking.forceCompact();
    expect(masking.contextUsed).toBe(1010);
  });

  it("labels an exception from a custom compactor compactor_error, not the summarizer's llm_error", async () => {
    const bug = new TypeError("cannot read properties of undefined");
    const session = new AgentSession({
      contextLimit: 100,
      trimOnOverflow: false,
      compactor: false,
      llmCompactor: {
        isAsync: true,
        shouldCompact: () => true,
        compact: (conversation) => ({
          conversation: [...conversation],
          result: { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 },
        }),
        compactAsync: async () => {
          throw bug;
        },
      },
    });
    session.append(...history(2));
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("compactor_error");
    expect(report.error?.cause).toBe(bug);
    const forced = await session.forceCompact().catch((error: unknown) => error);
    expect(forced).toBeInstanceOf(CompactionError);
    expect((forced as CompactionError).code).toBe("compactor_error");
  });

  it("refuses what a custom compactor returns when it is not a valid conversation", async () => {
    const session = new AgentSession({
      contextLimit: 100,
      trimOnOverflow: false,
      compactor: {
        isAsync: false,
        shouldCompact: () => true,
        compact: (conversation) => ({
          conversation: [{ ...conversation[0]!, content: "not blocks" } as never],
          result: { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 },
        }),
      },
    });
    session.append(...history(2));
    const before = session.messages;
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("compactor_error");
    expect(report.error?.message).toContain("content");
    expect(session.messages).toBe(before);
  });

  it("runs an async custom compactor (isAsync with compactAsync only) the same way", async () => {
    const session = new AgentSession({
      contextLimit: 100,
      trimOnOverflow: false,
      compactor: false,
      llmCompactor: {
        isAsync: true,
        shouldCompact: () => true,
        compactAsync: async (conversation: readonly Message[]) =>
          droppingCompactor().compact(conversation, new Map()),
      } as never,
    });
    session.append(...history(2));
    expect((await session.maybeCompact()).compacted).toBe(true);
    expect(session.messages).toHaveLength(4);
  });
});

describe("the system prompt and tools alone above the trigger", () => {
  /** A compactor due above half the window that drops the first turn, as `droppingCompactor`. */
  const halfWindow = (): Compactor => ({
    ...droppingCompactor(),
    shouldCompact: (contextUsed, contextLimit) => contextUsed > 0.5 * contextLimit,
  });

  /** `runs` automatic compactions of 3 turns, each after a usage 6,000 tokens above the messages. */
  async function withOverhead(compactor: Compactor, runs: number) {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 10_000,
      compactor,
      onEvent: (event) => events.push(event),
    });
    session.append(...history(3));
    for (let run = 0; run < runs; run += 1) {
      session.recordUsage({
        inputTokens: 6_000 + estimateTokens(session.messages),
        outputTokens: 1,
      });
      expect((await session.maybeCompact()).compacted).toBe(true);
    }
    const warnings = events.filter((event) => event.type === "context_window_warning");
    return { session, events, warnings };
  }

  it("warns once and trims nothing when the compactor's trigger is below the overhead", async () => {
    const { session, events, warnings } = await withOverhead(halfWindow(), 2);
    expect(warnings.map((event) => event.problem.kind)).toEqual(["overhead_above_trigger"]);
    expect(events.some((event) => event.type === "context_trimmed")).toBe(false);
    expect(session.messages.map((message) => message.turnId.number)).toEqual([3, 3, 3, 3]);
  });

  it("never warns for a compactor due on an empty context (no trigger to be above)", async () => {
    const { warnings } = await withOverhead(droppingCompactor(), 1);
    expect(warnings).toEqual([]);
  });
});

describe("hooks that start a compaction never hang the session", () => {
  it("runs a compaction an afterCompact hook awaits after the current one", async () => {
    const forced: number[] = [];
    const session: AgentSession = new AgentSession({
      contextLimit: 3000,
      afterCompact: async (boundary) => {
        if (boundary.trigger !== "auto") return;
        const result = await session.forceCompact();
        forced.push(result.boundaries.length);
        await session.maybeCompact();
      },
    });
    session.append(...history(5));
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    expect(forced).toEqual([0]);
    expect(session.isCompacting).toBe(false);
  });

  it("rejects at once a compaction a beforeCompact hook awaits, with code busy", async () => {
    const seen: unknown[] = [];
    const session: AgentSession = new AgentSession({
      contextLimit: 3000,
      beforeCompact: async () => {
        seen.push(await session.forceCompact().catch((error: unknown) => error));
        seen.push(await session.maybeCompact().catch((error: unknown) => error));
        return undefined;
      },
    });
    session.append(...history(5));
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    expect(seen).toHaveLength(2);
    for (const error of seen) {
      expect(error).toBeInstanceOf(CompactionError);
      expect((error as CompactionError).code).toBe("busy");
    }
    expect(session.isCompacting).toBe(false);
    await expect(session.forceCompact()).resolves.toBeDefined();
  });
});

describe("forceCompact queued behind an automatic run", () => {
  it("counts tokensBefore on the conversation it found, not the one before the automatic run", async () => {
    const seen: (readonly Message[])[] = [];
    const session = new AgentSession({
      contextLimit: 100_000,
      trimOnOverflow: false,
      compactor: {
        isAsync: false,
        shouldCompact: () => true,
        compact(conversation, _summaries, context): CompactionOutput {
          if (context?.trigger === "manual") seen.push(conversation);
          // Drops the oldest turn each time it runs.
          const first = conversation[0]?.turnId.number;
          return {
            conversation: conversation.filter((message) => message.turnId.number !== first),
            result: { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 1 },
          };
        },
      },
    });
    session.append(...history(4));
    const automatic = session.maybeCompact();
    const forced = session.forceCompact();
    expect((await automatic).compacted).toBe(true);
    const result = await forced;
    expect(seen).toHaveLength(1);
    expect(result.tokensBefore).toBe(estimateTokens(seen[0]!));
    expect(result.tokensAfter).toBe(estimateTokens(session.messages));
  });
});

describe("calls from outside a running beforeCompact hook", () => {
  it("wait their turn instead of being refused: only the hook's own calls get busy", async () => {
    const entered = gate();
    const release = gate();
    const session: AgentSession = new AgentSession({
      contextLimit: 3000,
      beforeCompact: holdingHook(entered, release),
    });
    session.append(...history(5));
    const automatic = session.maybeCompact();
    await entered.opened;
    // The app, not the hook: a forceCompact and a maybeCompact while the hook waits.
    const forced = session.forceCompact();
    const joined = session.maybeCompact();
    release.open();
    expect((await automatic).compacted).toBe(true);
    await expect(joined).resolves.toMatchObject({ compacted: true });
    await expect(forced).resolves.toMatchObject({ overWindow: false });
    expect(session.isCompacting).toBe(false);
  });
});

describe("signals from another realm or a polyfill", () => {
  it("are accepted by maybeCompact and forceCompact, and honoured", async () => {
    const listeners: (() => void)[] = [];
    const polyfill = {
      aborted: true,
      reason: new Error("stop"),
      onabort: null,
      addEventListener: (_type: string, listener: () => void) => listeners.push(listener),
      removeEventListener: () => {},
      dispatchEvent: () => true,
      throwIfAborted: () => {},
    } as unknown as AbortSignal;
    const session = new AgentSession({
      contextLimit: 100,
      trimOnOverflow: false,
      compactor: false,
      llmCompactor: new LLMCompactor(new MockLlmClient()),
    });
    session.append(...history(4));
    const report = await session.maybeCompact({ signal: polyfill });
    expect(report.error?.code).toBe("aborted");
    const forced = await session
      .forceCompact({ signal: polyfill })
      .catch((error: unknown) => error);
    expect((forced as CompactionError).code).toBe("aborted");
  });

  it("still refuses what is not a signal, naming the field", async () => {
    const session = new AgentSession({ contextLimit: 100 });
    await expect(session.maybeCompact({ signal: {} as never })).rejects.toThrow("signal");
  });
});
