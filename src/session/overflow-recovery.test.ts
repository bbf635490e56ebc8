import { describe, expect, it } from "vitest";
import { CompactionError, ValidationError } from "../core/errors.js";
import { estimateTokens } from "../core/message-memo.js";
import { validateConversation } from "../core/validate-conversation.js";
import { AgentSession } from "./agent-session.js";
import type { ForceCompactOptions, ForceCompactResult } from "./compaction-report.js";
import { type OverflowRecoverySession, withOverflowRecovery } from "./overflow-recovery.js";

const refusal = () =>
  Object.assign(new Error("400 prompt is too long"), {
    status: 400,
    apiMessage: "prompt is too long: 9000 tokens > 8000 maximum",
  });

const compacted: ForceCompactResult = {
  toolResultsSummarized: 0,
  toolResultsRedacted: 0,
  turnsCompacted: 3,
  boundaries: [{} as ForceCompactResult["boundaries"][number]],
  overWindow: false,
};

/** A session whose forceCompact answers `outcome`, recording what it was asked. */
function fakeSession(outcome: ForceCompactResult | Error = compacted) {
  const calls: (ForceCompactOptions | undefined)[] = [];
  const session: OverflowRecoverySession = {
    forceCompact: async (options) => {
      calls.push(options);
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
  return { session, calls };
}

/** A send that answers each attempt from `outcomes` (an Error is thrown). */
function scriptedSend(...outcomes: (string | Error)[]) {
  const attempts: number[] = [];
  const send = async (attempt: number) => {
    attempts.push(attempt);
    const outcome = outcomes[attempt];
    if (outcome instanceof Error) throw outcome;
    return outcome ?? "unscripted";
  };
  return { send, attempts };
}

describe("withOverflowRecovery", () => {
  it("sends once and compacts nothing when the request is accepted", async () => {
    const { session, calls } = fakeSession();
    const { send, attempts } = scriptedSend("reply");
    await expect(withOverflowRecovery(session, send)).resolves.toBe("reply");
    expect(attempts).toEqual([0]);
    expect(calls).toEqual([]);
  });

  it("force-compacts on a refusal for length and sends once more", async () => {
    const { session, calls } = fakeSession();
    const { send, attempts } = scriptedSend(refusal(), "reply");
    const controller = new AbortController();
    const seen: unknown[] = [];
    const reply = await withOverflowRecovery(session, send, {
      instructions: "Keep the failing test's name.",
      signal: controller.signal,
      onRecovery: ({ error, result }) => seen.push(error, result),
    });
    expect(reply).toBe("reply");
    expect(attempts).toEqual([0, 1]);
    expect(calls).toEqual([
      { instructions: "Keep the failing test's name.", signal: controller.signal },
    ]);
    expect(seen[1]).toBe(compacted);
  });

  it("never retries another error", async () => {
    const { session, calls } = fakeSession();
    const overloaded = Object.assign(new Error("529 overloaded"), { status: 529 });
    const { send, attempts } = scriptedSend(overloaded, "reply");
    await expect(withOverflowRecovery(session, send)).rejects.toBe(overloaded);
    expect(attempts).toEqual([0]);
    expect(calls).toEqual([]);
  });

  it("rethrows a second refusal as it came", async () => {
    const { session, calls } = fakeSession();
    const second = refusal();
    const { send, attempts } = scriptedSend(refusal(), second, "reply");
    await expect(withOverflowRecovery(session, send)).rejects.toBe(second);
    expect(attempts).toEqual([0, 1]);
    expect(calls).toHaveLength(1);
  });

  it("rejects with the CompactionError when the compaction fails, without resending", async () => {
    const failure = new CompactionError("llm_error", "summarizer failed");
    const { session } = fakeSession(failure);
    const { send, attempts } = scriptedSend(refusal(), "reply");
    await expect(withOverflowRecovery(session, send)).rejects.toBe(failure);
    expect(attempts).toEqual([0]);
  });

  it("rethrows the refusal when the compaction changed nothing", async () => {
    const { session } = fakeSession({ ...compacted, turnsCompacted: 0, boundaries: [] });
    const first = refusal();
    const { send, attempts } = scriptedSend(first, "reply");
    await expect(withOverflowRecovery(session, send)).rejects.toBe(first);
    expect(attempts).toEqual([0]);
  });

  it("asks the given isOverflow", async () => {
    const { session, calls } = fakeSession();
    const custom = new Error("model_context_window_exceeded");
    const { send } = scriptedSend(custom, "reply");
    const isOverflow = (error: unknown) => error === custom;
    await expect(withOverflowRecovery(session, send, { isOverflow })).resolves.toBe("reply");
    expect(calls).toHaveLength(1);
    // The default does not know this wording: rethrown.
    await expect(withOverflowRecovery(session, scriptedSend(custom).send)).rejects.toBe(custom);
  });

  it("refuses bad arguments with a ValidationError naming each field", async () => {
    const { session } = fakeSession();
    const { send } = scriptedSend("reply");
    const bad = (...args: unknown[]) =>
      (withOverflowRecovery as (...args: unknown[]) => Promise<unknown>)(...args).catch(
        (error: unknown) => error,
      );
    const error = await bad({}, "send", { isOverflow: 1, instructions: 2, signal: {} });
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path.join("."))).toEqual([
      "session",
      "send",
      "options.isOverflow",
      "options.instructions",
      "options.signal",
    ]);
    expect(ValidationError.isInstance(await bad(session, send, null))).toBe(true);
  });
});

describe("withOverflowRecovery and the window a refusal names", () => {
  it("tells the session the window before it compacts", async () => {
    const order: string[] = [];
    const session: OverflowRecoverySession = {
      recordContextOverflow: (refusal) => {
        order.push(`window ${refusal.windowTokens} (request ${refusal.requestTokens})`);
      },
      forceCompact: async () => {
        order.push("compact");
        return compacted;
      },
    };
    const { send } = scriptedSend(refusal(), "reply");
    await expect(withOverflowRecovery(session, send)).resolves.toBe("reply");
    expect(order).toEqual(["window 8000 (request 9000)", "compact"]);
  });

  it("tells nothing when the refusal names no window", async () => {
    const told: unknown[] = [];
    const session: OverflowRecoverySession = {
      recordContextOverflow: (refusal) => {
        told.push(refusal);
      },
      forceCompact: async () => compacted,
    };
    const unnamed = Object.assign(new Error("400 context_length_exceeded"), { status: 400 });
    await withOverflowRecovery(session, scriptedSend(unnamed, "reply").send);
    expect(told).toEqual([]);
  });
});

describe("withOverflowRecovery on a session that never saw what the request held (review 54c H4)", () => {
  it("measures the refused request's size, trims to the window and sends again", async () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    // A chat of about 130k tokens by the estimate: 65%, under every threshold.
    for (let turn = 0; turn < 26; turn += 1) {
      session.addUserText(`Question ${turn}: ${"q".repeat(10_000)}`);
      session.addAssistant([{ type: "text", text: `Answer ${turn}: ${"a".repeat(10_000)}` }]);
    }
    session.addUserText("And the last question?");
    expect(session.contextUsed).toBeLessThan(0.7 * 200_000);
    // The request also held a system prompt of about 85k tokens: refused.
    const system = 85_000;
    const send = async () => {
      const size = estimateTokens(session.messages) + system;
      if (size > 200_000)
        throw Object.assign(new Error("400 prompt is too long"), {
          status: 400,
          apiMessage: `prompt is too long: ${size} tokens > 200000 maximum`,
        });
      return "reply";
    };
    await expect(withOverflowRecovery(session, send)).resolves.toBe("reply");
    // The system prompt counts from now on: the measure holds it.
    expect(session.contextUsed).toBeGreaterThan(system);
    expect(session.contextUsed).toBeLessThanOrEqual(200_000);
    expect(validateConversation(session.messages)).toEqual([]);
  });
});
