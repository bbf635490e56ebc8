import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import type { Compactor } from "../core/compactor.js";
import { emptyCompactionResult } from "../core/compactor.js";
import { type Message, SYSTEM_MESSAGE_BLOCK_TYPE } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { keepThinkingValid } from "../core/preserved-thinking.js";
import { ConversationBuilder } from "../testing/builders.js";
import { StatelessCompaction, type StatelessOutcome } from "./stateless-compaction.js";

/** A system message as the converters hold one, first in the conversation. */
function withInstructions(conversation: Message[]): Message[] {
  const first = conversation[0]!;
  const system: Message = {
    ...first,
    id: "system-0",
    role: "user",
    content: [
      {
        type: "opaque",
        block: {
          type: SYSTEM_MESSAGE_BLOCK_TYPE,
          message: { role: "system", content: "Be brief." },
        },
      },
    ],
  };
  return [system, ...conversation];
}

/** An outcome with the fresh id and instant of each message it made (a notice) left out. */
function comparable(outcome: StatelessOutcome) {
  const conversation = outcome.conversation.map((message) =>
    message.generated === undefined ? message : { ...message, id: "made", createdAt: new Date(0) },
  );
  return { ...outcome, conversation };
}

describe("StatelessCompaction", () => {
  it("compacts the intake's messages the same with what its walk saw as without it", async () => {
    await fc.assert(
      fc.asyncProperty(
        trajectoryArbitrary(),
        fc.boolean(),
        fc.boolean(),
        async (trajectory, instructions, keepStaleThinking) => {
          const conversation = instructions ? withInstructions(trajectory) : trajectory;
          const estimate = estimateTokens(conversation);
          const contextLimit = Math.max(1, Math.ceil(estimate / 0.9));
          const stateless = new StatelessCompaction({
            contextLimit,
            compactor: new ThresholdCompactor({ toolCompaction: "redact", keepRecentTurns: 1 }),
            keepStaleThinking,
          });
          const intake = stateless.intake(conversation);
          const options = { estimate, records: intake.records };
          const told = await stateless.compact(intake.messages, estimate, {
            ...options,
            facts: intake.facts,
          });
          const walked = await stateless.compact(intake.messages, estimate, options);
          expect(comparable(told)).toEqual(comparable(walked));
          expect(intake.facts.leadingSystemIds.has("system-0")).toBe(instructions);
        },
      ),
      { seed: 20261205, numRuns: 150 },
    );
  });

  it("sees thinking in any assistant message, and none where there is none", () => {
    const stateless = new StatelessCompaction({ contextLimit: 100_000 });
    const plain = new ConversationBuilder().user("hi").assistant("hello").build();
    expect(stateless.intake(plain).facts.thinking).toBe(false);
    const thinking = new ConversationBuilder()
      .user("hi")
      .assistant([
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "text", text: "hello" },
      ])
      .build();
    expect(stateless.intake(thinking).facts.thinking).toBe(true);
  });
});

describe("keepThinkingValid told the history before holds no thinking", () => {
  it("still removes the thinking of a message the compaction made", () => {
    const before = new ConversationBuilder()
      .user("a")
      .assistant("b")
      .user("c")
      .assistant("d")
      .build();
    // An app's compactor that rewrote the second reply with a thinking block of its own.
    const made: Message = {
      ...before[3]!,
      content: [
        { type: "thinking", thinking: "old", signature: "sig" },
        { type: "text", text: "d" },
      ],
    };
    const after = [before[0]!, before[1]!, before[2]!, made];
    const told = keepThinkingValid(before, after, undefined, true);
    expect(told).toEqual(keepThinkingValid(before, after));
    expect(told.repair.thinkingBlocksDropped).toBe(1);
    expect(told.conversation[3]!.content).toEqual([{ type: "text", text: "d" }]);
  });

  it("is what a compactor that changes nothing but one message leaves valid", async () => {
    const conversation = new ConversationBuilder().user("a").assistant("b").user("c").build();
    const swap: Compactor = {
      isAsync: false,
      shouldCompact: () => true,
      compact: (messages) => ({
        conversation: [
          messages[0]!,
          {
            ...messages[1]!,
            content: [
              { type: "redacted_thinking", data: "x" },
              { type: "text", text: "b" },
            ],
          } as Message,
          messages[2]!,
        ],
        result: emptyCompactionResult(),
      }),
    };
    const stateless = new StatelessCompaction({ contextLimit: 100, compactor: swap });
    const intake = stateless.intake(conversation);
    const outcome = await stateless.compact(intake.messages, 90, { facts: intake.facts });
    expect(outcome.thinkingBlocksDropped).toBe(1);
  });
});

describe("StatelessCompaction's last resort, by the session's rule", () => {
  // A system prompt and tools above the compactor's trigger: no compaction can bring the
  // context under it, so the last resort does not chase the compactor's target (the session
  // warns instead); below 95% of the window nothing is trimmed. Before, the stateless path
  // trimmed every turn it could for a target it could never reach.
  it("trims nothing for the compactor's target when the overhead alone is above its trigger", async () => {
    const builder = new ConversationBuilder();
    for (let turn = 1; turn <= 8; turn += 1) {
      builder.user(`Request ${turn}: ${"keep going. ".repeat(20)}`);
      builder.toolCall({
        name: "read",
        input: { n: turn },
        result: "line of output\n".repeat(150),
      });
      builder.assistant(`Done ${turn}: ${"fine. ".repeat(30)}`);
    }
    const conversation = builder.build();
    const contextLimit = 20_000;
    const overheadTokens = 13_000;
    const estimate = estimateTokens(conversation);
    expect(overheadTokens + estimate).toBeLessThan(0.95 * contextLimit);
    const compactor = new ThresholdCompactor({
      threshold: 0.5,
      toolCompaction: "redact",
      keepRecentTurns: 1,
    });
    const stateless = new StatelessCompaction({ contextLimit, overheadTokens, compactor });
    const outcome = await stateless.compact(conversation, overheadTokens + estimate, { estimate });
    expect(outcome.result.toolResultsRedacted).toBe(7);
    expect(outcome.result.messagesRemoved).toBeUndefined();
    expect(outcome.conversation.filter((message) => message.role === "user")).toHaveLength(16);
  });
});

describe("StatelessCompaction, calls waiting after signed thinking (an approval given)", () => {
  const thinking = { type: "thinking" as const, thinking: "Remove it.", signature: "sig" };
  const call = { type: "tool_use" as const, id: "toolu_rm", name: "remove", input: {} };
  const result = {
    type: "tool_result" as const,
    toolUseId: "toolu_rm",
    content: "ok",
    isError: false,
  };
  const conversation = (answered: boolean) =>
    new ConversationBuilder()
      .user(`Read this: ${"x".repeat(8_000)}`)
      .assistant([thinking, call])
      .user(answered ? [result] : [{ type: "opaque", block: { type: "tool-approval-response" } }])
      .build();

  it("changes nothing before them, no clamp, no compactor, no last resort; once answered, compacts", async () => {
    const stateless = new StatelessCompaction({ contextLimit: 2_000 });
    const waiting = stateless.intake(conversation(false));
    expect(waiting.clamped).toEqual([]);
    const outcome = await stateless.compact(waiting.messages, 2_500, { facts: waiting.facts });
    expect(outcome.changed).toBe(false);
    const answered = stateless.intake(conversation(true));
    expect(answered.clamped).toEqual([0]);
  });
});
