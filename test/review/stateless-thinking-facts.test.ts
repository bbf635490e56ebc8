import { describe, expect, it } from "vitest";
import type { Compactor } from "../../src/core/compactor.js";
import { emptyCompactionResult } from "../../src/core/compactor.js";
import { type Message, SYSTEM_MESSAGE_BLOCK_TYPE } from "../../src/core/message.js";
import {
  StatelessCompaction,
  type StatelessOutcome,
} from "../../src/session/stateless-compaction.js";
import { ConversationBuilder } from "../../src/testing/builders.js";

/** An outcome's messages, those it made (a notice) without their fresh id and instant. */
function comparable(outcome: StatelessOutcome): Message[] {
  return outcome.conversation.map((message) =>
    message.generated === undefined ? message : { ...message, id: "made", createdAt: new Date(0) },
  );
}

/** A compactor that rewrites the text of the conversation's message at `at`, nothing else. */
function rewriteAt(at: number): Compactor {
  return {
    isAsync: false,
    shouldCompact: () => true,
    compact: (messages) => ({
      conversation: messages.map((message, index) =>
        index === at
          ? ({ ...message, content: [{ type: "text", text: "short" }] } as Message)
          : message,
      ),
      result: emptyCompactionResult(),
    }),
  };
}
const rewriteSecond = rewriteAt(1);

/** A system message (its instructions carried whole) in `message`'s place, its role kept. */
function asSystem(message: Message): Message {
  return {
    ...message,
    content: [
      {
        type: "opaque",
        block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: "x" } },
      },
    ],
  } as Message;
}

// The intake noted whether the conversation holds thinking by its assistant messages alone,
// while a user message may hold a thinking block too (the message schema allows it): told that
// none holds any, the landing left the stale thinking of a user message after the change, which
// the walk without the intake's facts (and the session's landing) removes.
describe("StatelessCompaction's intake facts", () => {
  it("see thinking in a user message, and compact as the walk without them does", async () => {
    const conversation = new ConversationBuilder()
      .user("a")
      .assistant("b")
      .user([
        { type: "thinking", thinking: "pasted", signature: "sig" },
        { type: "text", text: "c" },
      ])
      .build();
    const stateless = new StatelessCompaction({ contextLimit: 100, compactor: rewriteSecond });
    const intake = stateless.intake(conversation);
    expect(intake.facts.thinking).toBe(true);
    const told = await stateless.compact(intake.messages, 90, { facts: intake.facts });
    const walked = await stateless.compact(intake.messages, 90, {});
    expect(told.thinkingBlocksDropped).toBe(walked.thinkingBlocksDropped);
    expect(comparable(told)).toEqual(comparable(walked));
  });

  it("pin an opening system message of the assistant's role, as the walk without them does", async () => {
    const built = new ConversationBuilder().user("a").assistant("b").user("c").build();
    // `isSystemMessage` goes by the content alone: any role may carry the instructions.
    const system = asSystem(built[1]!);
    const conversation = [system, built[0]!, built[2]!];
    const stateless = new StatelessCompaction({ contextLimit: 100, compactor: rewriteAt(0) });
    const intake = stateless.intake(conversation);
    expect(intake.facts.leadingSystemIds.has(system.id)).toBe(true);
    const told = await stateless.compact(intake.messages, 90, { facts: intake.facts });
    const walked = await stateless.compact(intake.messages, 90, {});
    expect(comparable(told)).toEqual(comparable(walked));
    expect(told.conversation[0]).toBe(system);
  });

  // Review 52c's findings 1 and 2: every system message was pinned, so the reminders of
  // removed turns came back in one run after the summary (misplaced for the Messages API),
  // and the last resort could not remove them (the output stayed over the window).
  it("leave a later system message (a reminder) to the compactors, as the walk without them does", async () => {
    const built = new ConversationBuilder().user("a").assistant("b").user("c").build();
    const system = asSystem(built[1]!);
    const conversation = [built[0]!, system, built[2]!];
    const stateless = new StatelessCompaction({ contextLimit: 100, compactor: rewriteSecond });
    const intake = stateless.intake(conversation);
    expect(intake.facts.leadingSystemIds.size).toBe(0);
    const told = await stateless.compact(intake.messages, 90, { facts: intake.facts });
    const walked = await stateless.compact(intake.messages, 90, {});
    expect(comparable(told)).toEqual(comparable(walked));
    expect(told.conversation[1]!.content).toEqual([{ type: "text", text: "short" }]);
  });
});
