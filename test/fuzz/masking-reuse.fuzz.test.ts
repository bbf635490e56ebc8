import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { recordedMasking } from "../../src/compactors/masking-reuse.js";
import {
  ThresholdCompactor,
  type ThresholdCompactorOptions,
} from "../../src/compactors/threshold-compactor.js";
import type { CompactionContext } from "../../src/core/compactor.js";
import type { Message } from "../../src/core/message.js";
import { estimateTokens } from "../../src/core/message-memo.js";
import { trajectoryArbitrary } from "../arbitraries/trajectory.js";
import { seed } from "../properties/invariants.js";
import { unseenCopy } from "../support/unseen-copy.js";

/**
 * A conversation masked again and again, changed between passes as a loop or a caller changes
 * it (grown, cut back, a message replaced by an equal object, a turn taken out of the middle,
 * another array of the same messages), under every masking setting: each pass gives what a
 * first pass on new objects gives. What past passes noted of the conversation
 * (`masking-reuse.ts`: masked messages reused, messages without results and their blocks not
 * read again, turns told apart by number) must never change an output, and it keeps nothing of
 * messages the conversation no longer holds.
 */

const SETTINGS: readonly Partial<ThresholdCompactorOptions>[] = [
  { toolCompaction: "redact", keepRecentTurns: 1 },
  { toolCompaction: "redact", keepRecentTurns: 2 },
  { toolCompaction: "summarize_or_redact", keepRecentTurns: 1 },
  { toolCompaction: "summarize", keepRecentTurns: 1 },
  { toolCompaction: "redact", keepRecentTurns: 1, keepRecentToolUses: 2 },
  { toolCompaction: "redact", keepRecentTurns: 1, excludeTools: ["grep"] },
  { toolCompaction: "redact", keepRecentTurns: 1, clearToolInputs: true },
  { toolCompaction: "redact", keepRecentTurns: 1, keepPathMentions: true },
  { toolCompaction: "redact", keepRecentTurns: 1, targetUtilization: 0.5 },
];

/** How a pass's conversation is made from the whole trajectory. */
type View =
  | { kind: "prefix"; cut: number }
  | { kind: "copyOne"; cut: number; at: number }
  | { kind: "dropTurn"; cut: number; turn: number }
  | { kind: "sameArray"; cut: number };

interface Pass {
  view: View;
  settings: number;
  summarized: boolean;
}

/** Where a request opens a turn (a user message without results): the cuts that keep exchanges whole. */
function requestStarts(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (
      index > 0 &&
      message.role === "user" &&
      !message.content.some((block) => block.type === "tool_result")
    )
      starts.push(index);
  });
  return [...starts, messages.length];
}

function pick<T>(values: readonly T[], at: number): T {
  return values[at % values.length]!;
}

/** The conversation of `view`, made from `full` (`kept`: the array a `sameArray` view reuses). */
function viewOf(full: readonly Message[], view: View, kept: Message[]): Message[] {
  const starts = requestStarts(full);
  const cut = pick(starts, view.cut);
  switch (view.kind) {
    case "prefix":
      return full.slice(0, cut);
    case "sameArray":
      // The same array, grown or cut back in place.
      kept.length = 0;
      kept.push(...full.slice(0, cut));
      return kept;
    case "copyOne": {
      const messages = full.slice(0, cut);
      const at = view.at % Math.max(messages.length, 1);
      if (at > 0 && messages[at] !== undefined) messages[at] = { ...messages[at]! };
      return messages;
    }
    case "dropTurn": {
      const inside = starts.filter((start) => start < cut);
      if (inside.length < 2) return full.slice(0, cut);
      const from = pick(inside.slice(0, -1), view.turn);
      const to = inside[inside.indexOf(from) + 1]!;
      return [...full.slice(0, from), ...full.slice(to, cut)];
    }
  }
}

const viewArbitrary: fc.Arbitrary<View> = fc.oneof(
  fc.record({ kind: fc.constant("prefix" as const), cut: fc.nat() }),
  fc.record({ kind: fc.constant("copyOne" as const), cut: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant("dropTurn" as const), cut: fc.nat(), turn: fc.nat() }),
  fc.record({ kind: fc.constant("sameArray" as const), cut: fc.nat() }),
);

const passArbitrary: fc.Arbitrary<Pass> = fc.record({
  view: viewArbitrary,
  settings: fc.nat({ max: SETTINGS.length - 1 }),
  summarized: fc.boolean(),
});

/** What a pass returns, or the message it threw. */
function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

describe("masking again reuses only what holds (fuzz)", () => {
  it("each pass on a conversation changed between passes gives a first pass's output", () => {
    const compactors = SETTINGS.map((settings) => new ThresholdCompactor(settings));
    fc.assert(
      fc.property(
        trajectoryArbitrary({ minTurns: 2, maxTurns: 9 }),
        fc.array(passArbitrary, { minLength: 2, maxLength: 8 }),
        (full, passes) => {
          const kept: Message[] = [];
          const summaries = new Map<string, string>();
          for (const message of full)
            for (const block of message.content)
              if (block.type === "tool_result" && summaries.size < 3)
                summaries.set(block.toolUseId, `summary of ${block.toolUseId}`);
          for (const pass of passes) {
            const conversation = viewOf(full, pass.view, kept);
            const compactor = compactors[pass.settings]!;
            const given = pass.summarized ? summaries : new Map<string, string>();
            const tokens = estimateTokens(conversation);
            const context: CompactionContext = { contextLimit: tokens + 1, contextUsed: tokens };
            const again = outcome(() => compactor.compact(conversation, given, context));
            const fresh = outcome(() =>
              compactor.compact(unseenCopy(conversation), given, context),
            );
            expect(again).toEqual(fresh);
            // What the record holds is of the conversation as it is now: nothing else kept alive.
            const record = recordedMasking(conversation);
            expect(record?.sources.length ?? 0).toBeLessThanOrEqual(conversation.length);
            record?.sources.forEach((source, index) => {
              if (source !== undefined) expect(source).toBe(conversation[index]);
            });
          }
        },
      ),
      { numRuns: 300, seed: seed(31_0612) },
    );
  });
});
