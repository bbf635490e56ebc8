import { describe, expect, it } from "vitest";
import { gate, holdingHook } from "../../test/support/gate.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { CompactionError } from "../core/errors.js";
import type { AgentSessionOptions } from "../session/options.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { MemoryStore } from "./memory-store.js";
import { openSession, type StoredSession } from "./stored-session.js";

/** A session whose summarizer is always due, with `hooks`, filled with three turns. */
async function compactingSession(
  hooks: Pick<AgentSessionOptions, "beforeCompact" | "afterCompact">,
  holder: { session?: StoredSession } = {},
): Promise<StoredSession> {
  const session = await openSession(new MemoryStore(), "s", {
    contextLimit: 200_000,
    compactor: false,
    llmCompactor: new LLMCompactor(new MockLlmClient({ defaultReply: "the summary" }), {
      keepRecentTurns: 1,
      threshold: 0.001,
    }),
    leaseMs: 1000,
    ...hooks,
  });
  holder.session = session;
  for (let turn = 1; turn <= 3; turn += 1) {
    await session.addUserText(`request ${turn} ${"with details ".repeat(10)}`);
    await session.addAssistant([{ type: "text", text: `answer ${turn} ${"words ".repeat(20)}` }]);
  }
  return session;
}

describe("a stored session's hooks that start a compaction never hang it", () => {
  it("refuses at once, with busy, a compaction its beforeCompact hook awaits", async () => {
    const seen: unknown[] = [];
    const holder: { session?: StoredSession } = {};
    const session = await compactingSession(
      {
        beforeCompact: async () => {
          seen.push(await holder.session?.forceCompact().catch((error: unknown) => error));
          seen.push(await holder.session?.maybeCompact().catch((error: unknown) => error));
          return undefined;
        },
      },
      holder,
    );
    expect((await session.maybeCompact()).compacted).toBe(true);
    expect(seen).toHaveLength(2);
    for (const error of seen) {
      expect(error).toBeInstanceOf(CompactionError);
      expect((error as CompactionError).code).toBe("busy");
    }
  });

  it("runs a compaction its afterCompact hook awaits once the first has released the session", async () => {
    const forced: number[] = [];
    const holder: { session?: StoredSession } = {};
    const session = await compactingSession(
      {
        afterCompact: async (boundary) => {
          if (boundary.trigger !== "auto") return;
          const result = await holder.session!.forceCompact();
          forced.push(result.boundaries.length);
          await holder.session!.maybeCompact();
        },
      },
      holder,
    );
    expect((await session.maybeCompact()).compacted).toBe(true);
    expect(forced).toHaveLength(1);
  });

  it("lets calls from outside a running beforeCompact hook wait their turn", async () => {
    const entered = gate();
    const release = gate();
    const session = await compactingSession({ beforeCompact: holdingHook(entered, release) });
    const automatic = session.maybeCompact();
    await entered.opened;
    const forced = session.forceCompact();
    expect(session.maybeCompact()).toBe(automatic);
    release.open();
    expect((await automatic).compacted).toBe(true);
    await expect(forced).resolves.toMatchObject({ overWindow: false });
  });

  it("validates the options where they enter", async () => {
    const session = await compactingSession({});
    await expect(session.maybeCompact({ signal: "no" } as never)).rejects.toThrow(/signal/);
    await expect(session.forceCompact({ extra: 1 } as never)).rejects.toThrow(/extra/);
  });
});
