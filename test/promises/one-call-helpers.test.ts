import type { BaseMessage } from "@langchain/core/messages";
import type { ModelMessage } from "ai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { compactModelMessages, toModelMessages } from "../../src/ai-sdk/index.js";
import { compactAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import {
  compactChatMessages,
  fromChatMessages,
  toChatMessages,
} from "../../src/chat-completions/index.js";
import type { Message } from "../../src/core/message.js";
import { compactGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { AgentSession } from "../../src/index.js";
import { compactLangChainMessages, toLangChainMessages } from "../../src/langchain/index.js";
import { compactResponsesInput, toResponsesInput } from "../../src/openai/index.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import { MemoryArchive } from "../../src/store/index.js";
import { ConversationBuilder } from "../../src/testing/index.js";

// Every provider's one-call helper, on the same conversation: a stateless server that is sent
// the raw history again compacts it to the same request, byte for byte (the prompt cache reads
// it), however long the user's words the notice clips (they name their message).

type Helper = (
  messages: readonly Message[],
  options: CompactMessagesOptions,
) => Promise<{ messages: unknown[]; compacted: boolean }>;

const HELPERS: Record<string, Helper> = {
  compactAnthropicMessages: (messages, options) =>
    compactAnthropicMessages(toAnthropicMessages(messages), options),
  compactResponsesInput: (messages, options) =>
    compactResponsesInput(toResponsesInput(messages), options),
  compactGeminiContents: (messages, options) =>
    compactGeminiContents(toGeminiContents(messages), options),
  compactChatMessages: (messages, options) =>
    compactChatMessages(toChatMessages(messages), options),
  compactModelMessages: (messages, options) =>
    compactModelMessages(toModelMessages(messages), options),
  compactLangChainMessages: (messages, options) =>
    compactLangChainMessages(toLangChainMessages(messages), options),
};

/** Each helper on messages of its own format (what it sent). */
const REPEATS: Record<
  string,
  {
    compact: (
      wire: unknown[],
      options: CompactMessagesOptions,
    ) => Promise<{ messages: unknown[]; compacted: boolean }>;
  }
> = {
  compactAnthropicMessages: { compact: (wire, options) => compactAnthropicMessages(wire, options) },
  compactResponsesInput: { compact: (wire, options) => compactResponsesInput(wire, options) },
  compactGeminiContents: { compact: (wire, options) => compactGeminiContents(wire, options) },
  compactChatMessages: { compact: (wire, options) => compactChatMessages(wire, options) },
  compactModelMessages: {
    compact: (wire, options) => compactModelMessages(wire as ModelMessage[], options),
  },
  compactLangChainMessages: {
    compact: (wire, options) => compactLangChainMessages(wire as BaseMessage[], options),
  },
};

/** Turns of a long request (the user's words, longer than a notice keeps) and a few reads. */
function longRequests(turns: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`Request ${turn}: ${"never touch the vendored code, ".repeat(120)}`);
    for (let call = 1; call <= 3; call += 1)
      builder.toolCall({
        name: "read_file",
        input: { path: `src/t${turn}/f${call}.ts` },
        result: `// src/t${turn}/f${call}.ts\n${"export const value = 1;\n".repeat(120)}`,
      });
    builder.assistant(`Done with request ${turn}.`);
  }
  return builder.build();
}

describe("a one-call helper compacts the same history to the same request at every call", () => {
  for (const [name, helper] of Object.entries(HELPERS)) {
    it(name, async () => {
      const conversation = longRequests(12);
      const options = { contextLimit: 16_000 };
      const first = await helper(conversation, options);
      const again = await helper(conversation, options);
      expect(first.compacted).toBe(true);
      expect(JSON.stringify(first.messages)).toContain("cut here");
      expect(JSON.stringify(again.messages)).toBe(JSON.stringify(first.messages));
    });
  }
});

describe("the notice's cut user words claim an archive only when one kept them", () => {
  for (const [name, helper] of Object.entries(HELPERS))
    it(name, async () => {
      const conversation = longRequests(12);
      const archive = new MemoryArchive();
      const kept = await helper(conversation, { contextLimit: 16_000, archive });
      const text = JSON.stringify(kept.messages);
      expect(text).toContain("cut here");
      expect(text).toMatch(/are archived\.\] \[recall /);
      expect(archive.records("stateless").length).toBeGreaterThan(0);
      for (const options of [{}, { archive: false as const }]) {
        const unkept = await helper(conversation, { contextLimit: 16_000, ...options });
        expect(unkept.compacted).toBe(true);
        expect(JSON.stringify(unkept.messages)).toContain("cut here");
        expect(JSON.stringify(unkept.messages)).not.toContain("archived");
      }
    });

  it("AgentSession with archive: false", async () => {
    const session = new AgentSession({ contextLimit: 16_000, archive: false });
    session.append(...longRequests(12));
    await session.maybeCompact();
    const text = JSON.stringify(session.messages);
    expect(text).toContain("cut here");
    expect(text).not.toContain("archived");
  });
});

/** 30 requests (some with a long paste), 1 to 3 reads each, pseudo-random from `seed`. */
function pastedHistory(seed: number): ChatCompletionMessageParam[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const source = (n: number) =>
    `// f${n}.ts\nexport function fn${n}(a: number): number {\n  return a + ${n};\n}\n${"const x = 1;\n".repeat(40)}`;
  const history: ChatCompletionMessageParam[] = [];
  for (let turn = 1; turn <= 30; turn += 1) {
    const paste =
      random() < 0.3 ? `\n${"log line from the build\n".repeat(Math.floor(random() * 2000))}` : "";
    history.push({ role: "user", content: `Request ${turn}: Never edit gen/ files.${paste}` });
    const steps = 1 + Math.floor(random() * 3);
    for (let step = 0; step < steps; step += 1) {
      const id = `c${turn}_${step}`;
      const path = `src/f${turn}_${step}.ts`;
      history.push(
        {
          role: "assistant",
          content: `step ${turn}.${step} ${"reasoning. ".repeat(Math.floor(random() * 200))}`,
          tool_calls: [
            {
              id,
              type: "function",
              function: { name: "read_file", arguments: JSON.stringify({ path }) },
            },
          ],
        },
        { role: "tool", tool_call_id: id, content: source(turn * 10 + step) },
      );
    }
    history.push({ role: "assistant", content: `Done ${turn}.` });
  }
  history.push({ role: "user", content: "Final: sum up." });
  return history;
}

describe("a one-call helper's last resort keeps what the session's keeps", () => {
  it("leaves what the still-due compactor keeps when the request fits the window", async () => {
    // A history that went through a notice under one window, sent on to a smaller one: the
    // masking compactor is still due after its run, and the session trims nothing it keeps.
    const first = await compactChatMessages(pastedHistory(2), {
      contextLimit: 8_000,
      contextUsed: 8_000,
      maxBlockShare: 1,
    });
    const wire = [
      ...first.messages,
      { role: "assistant" as const, content: "ok" },
      { role: "user" as const, content: "continue" },
    ];
    for (const contextLimit of [5_000, 5_631, 6_500, 7_500]) {
      const ours = await compactChatMessages(wire, { contextLimit, maxBlockShare: 1 });
      const session = new AgentSession({ contextLimit, archive: false, maxBlockShare: 1 });
      session.append(...fromChatMessages(wire, { sessionId: session.sessionId }));
      await session.maybeCompact();
      // The same messages kept, each with the same kinds of blocks (the notice's texts and the
      // ids its clipped words name aside), the same tool results whole.
      const shape = (messages: readonly Message[]) =>
        messages.map((message) =>
          message.content
            .map((block) =>
              block.type === "tool_result"
                ? `${message.role}:result:${JSON.stringify(block.content).length}`
                : `${message.role}:${block.type}`,
            )
            .join(","),
        );
      const sent = fromChatMessages(ours.messages);
      expect(sent.length, `window ${contextLimit}`).toBe(session.messages.length);
      expect(shape(sent.slice(1)), `window ${contextLimit}`).toEqual(
        shape(session.messages.slice(1)),
      );
    }
  });
});

describe("a one-call helper on what it sent", () => {
  for (const [name, helper] of Object.entries(HELPERS))
    it(`${name} clamps a long paste once: on its own output it changes nothing`, async () => {
      const conversation = new ConversationBuilder()
        .user(`Why does the build fail?\n${"log line from the build\n".repeat(2_500)}`)
        .assistant("Looking.")
        .build();
      const options = { contextLimit: 40_000 };
      const first = await helper(conversation, options);
      expect(first.compacted).toBe(true);
      expect(JSON.stringify(first.messages)).toContain("characters cut to fit the context window");
      const { compact } = REPEATS[name]!;
      const again = await compact(first.messages, options);
      expect(again.compacted).toBe(false);
      expect(again.messages).toBe(first.messages);
    });
});
