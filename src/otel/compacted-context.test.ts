import { describe, expect, it } from "vitest";
import { memoryTracing } from "../../test/support/otel-tracing.js";
import { SUMMARY_PREFIX } from "../core/summary-format.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { ConversationBuilder } from "../testing/builders.js";
import { GEN_AI_ATTRIBUTES as G } from "./attributes.js";
import { holdsCompaction, markCompactedConversation } from "./compacted-context.js";

const plain = new ConversationBuilder().user("Fix the build.").assistant("Done.").build();

describe("holdsCompaction", () => {
  it("finds the summary message by its turn, and wire messages by the summary text or a compaction block", () => {
    const [first] = plain;
    if (first === undefined) throw new Error("no message");
    expect(holdsCompaction(plain)).toBe(false);
    expect(holdsCompaction([{ ...first, turnId: { ...SUMMARY_TURN_ID } }, ...plain])).toBe(true);
    expect(holdsCompaction([{ role: "user", content: `${SUMMARY_PREFIX}Goal: x.` }])).toBe(true);
    const joined = [
      { type: "text", text: "Pinned." },
      { type: "text", text: `${SUMMARY_PREFIX}Goal: x.` },
    ];
    expect(holdsCompaction([{ role: "user", content: joined }])).toBe(true);
    const block = { type: "compaction", content: "Summary.", signature: "sig" };
    expect(holdsCompaction([{ role: "assistant", content: [block] }])).toBe(true);
    expect(holdsCompaction([{ role: "assistant", content: [{ type: "opaque", block }] }])).toBe(
      true,
    );
    expect(holdsCompaction([{ type: "compaction", encrypted_content: "..." }])).toBe(true);
    expect(
      holdsCompaction([{ role: "user", content: "Summarize the previous conversation." }, null, 3]),
    ).toBe(false);
  });
});

describe("markCompactedConversation", () => {
  it("sets gen_ai.conversation.compacted = true when the request holds a compaction, and never false", () => {
    const { tracer, spans } = memoryTracing();
    const compacted = tracer.startSpan("chat claude-sonnet-5-5");
    const fresh = tracer.startSpan("chat claude-sonnet-5-5");
    expect(
      markCompactedConversation([{ role: "user", content: `${SUMMARY_PREFIX}Goal.` }], compacted),
    ).toBe(true);
    expect(markCompactedConversation(plain, fresh)).toBe(false);
    compacted.end();
    fresh.end();
    expect(spans()[0]?.attributes[G.CONVERSATION_COMPACTED]).toBe(true);
    expect(G.CONVERSATION_COMPACTED in (spans()[1]?.attributes ?? {})).toBe(false);
  });

  it("does nothing without an active span", () => {
    expect(markCompactedConversation([{ role: "user", content: `${SUMMARY_PREFIX}Goal.` }])).toBe(
      false,
    );
  });
});
