import { describe, expect, it } from "vitest";
import type { ContentBlock, Message } from "../core/message.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder, toolResultBlock, toolUseBlock } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { LLMCompactor } from "./llm-compactor.js";
import { trimOldest } from "./overflow-trim.js";
import { SUMMARY_PREFIX } from "./prompt.js";
import { REDACTION_NOTICE, ThresholdCompactor } from "./threshold-compactor.js";

/**
 * The compactors on the shapes of Anthropic's server-side compaction: a conversation led by the
 * API's `compaction` block, and mid-conversation system messages, which are never split from
 * the message they follow and which masking leaves alone.
 */

const systemBlock = (text: string): ContentBlock => ({
  type: "opaque",
  block: { type: "agentCompaction:systemMessage", message: { role: "system", content: text } },
});

/** A system message after `after`, in its turn. */
function systemAfter(after: Message, id: string, text: string): Message {
  return { ...after, role: "user", id, content: [systemBlock(text)] } as Message;
}

const output = (index: number) => `${"line of the file\n".repeat(40)}${index}`;

/** A request, a system message after it, then a long tool loop. */
function loopWithReminder(calls: number): Message[] {
  const builder = new ConversationBuilder().user("Fix every file. Never touch generated code.");
  const built = builder.build();
  builder.message(systemAfter(built[0]!, "sys-1", "Prefer small diffs."));
  for (let call = 1; call <= calls; call += 1) {
    builder.toolCall({ name: "read", result: output(call) });
  }
  return builder.build();
}

describe("a system message stays with what it follows", () => {
  it("a fold that keeps the latest request keeps its system message beside it", async () => {
    const conversation = loopWithReminder(12);
    const client = new MockLlmClient();
    const compactor = new LLMCompactor(client, { keepRecentTurns: 1, targetUtilization: 0.3 });
    const { conversation: out } = await compactor.compactAsync(conversation, new Map(), {
      contextLimit: 4_000,
      contextUsed: 3_900,
    });
    expect(out[0]!.content[0]).toMatchObject({ type: "text" });
    expect((out[0]!.content[0] as { text: string }).text.startsWith(SUMMARY_PREFIX)).toBe(true);
    expect(out[1]).toBe(conversation[0]);
    expect(out[2]).toBe(conversation[1]);
    expect(out.length).toBeLessThan(conversation.length);
    expect(validateConversation(out)).toEqual([]);
  });

  it("the overflow trim keeps the latest request with its system message", () => {
    const conversation = loopWithReminder(12);
    const trimmed = trimOldest(conversation, 600, { clock: () => new Date(0) })!;
    const at = trimmed.conversation.indexOf(conversation[0]!);
    expect(at).toBeGreaterThan(-1);
    expect(trimmed.conversation[at + 1]).toBe(conversation[1]);
    expect(trimmed.removed).not.toContain(conversation[1]);
    expect(validateConversation(trimmed.conversation)).toEqual([]);
  });

  it("masking leaves system messages alone", () => {
    const builder = new ConversationBuilder().user("Read them.");
    for (let call = 1; call <= 6; call += 1) {
      builder.assistant([toolUseBlock(`toolu_${call}`, "read")]);
      builder.toolResults([toolResultBlock(`toolu_${call}`, output(call))]);
      const results = builder.build().at(-1)!;
      builder.message(systemAfter(results, `sys-${call}`, `Reminder ${call}.`));
    }
    const conversation = builder.build();
    const { conversation: out } = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentToolUses: 2,
    }).compact(conversation, new Map());
    const systems = conversation.filter((message) => message.id.startsWith("sys-"));
    for (const message of systems) expect(out).toContain(message);
    expect(JSON.stringify(out)).toContain(REDACTION_NOTICE);
    expect(validateConversation(out)).toEqual([]);
  });
});

describe("a conversation led by the API's compaction block", () => {
  it("is folded by a client summary like an earlier summary: the block's text reaches the summarizer", async () => {
    const builder = new ConversationBuilder().user("First.");
    const first = builder.build()[0]!;
    const compaction: Message = {
      ...first,
      role: "assistant",
      id: "compaction",
      turnId: { owner: "u", number: 0 },
      content: [
        {
          type: "opaque",
          block: { type: "compaction", content: "The user wants src/a.ts fixed.", signature: "s" },
        },
      ],
    };
    const rest = new ConversationBuilder({ idPrefix: "m" })
      .user("Go on.")
      .toolCall({ name: "read", result: output(1) })
      .assistant("Done.")
      .user("Next.")
      .toolCall({ name: "read", result: output(2) })
      .assistant("Done again.")
      .user("And the docs.")
      .build();
    const conversation = [compaction, ...rest];
    expect(validateConversation(conversation)).toEqual([]);
    const client = new MockLlmClient();
    const { conversation: out } = await new LLMCompactor(client, {
      keepRecentTurns: 1,
    }).compactAsync(conversation, new Map());
    expect(client.requests[0]!.prompt).toContain(
      "[Earlier summary]\nThe user wants src/a.ts fixed.",
    );
    expect(out).not.toContain(compaction);
    expect(validateConversation(out)).toEqual([]);
  });
});
