import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { fromAnthropicMessages } from "../anthropic/index.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { isCompactionResultEmpty } from "../core/compactor.js";
import { estimateTokens } from "../core/message-memo.js";
import { SUMMARY_PREFIX, TRIM_NOTICE } from "../core/summary-format.js";
import { isSummaryTurn } from "../core/turn.js";
import { AgentSession } from "../session/agent-session.js";
import { CompactionMemory } from "../store/index.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { convertModelMessages, fromModelMessages, toModelMessages } from "./model-messages.js";

/**
 * The library's notice (or summary) and the first kept request go as one user message, the
 * library's parts first: Gemini (through `@ai-sdk/google`) and hosts whose chat template wants
 * roles to alternate refuse two user messages in a row. Read back, it comes apart again, so the
 * next compaction replaces the notice and keeps the request.
 */

const REQUEST = "Now read the files under src/ one by one.";
const CACHED = { anthropic: { cacheControl: { type: "ephemeral" } } };

/** A file's text as `read` gives it: about 1,000 tokens. */
const fileText = (path: string) => `// ${path}\n${"export const value = 42;\n".repeat(160)}`;

function read(call: number): ModelMessage[] {
  const path = `src/f${call}.ts`;
  const ids = { toolCallId: `read-${call}`, toolName: "read" };
  return [
    { role: "assistant", content: [{ type: "tool-call", ...ids, input: { path } }] },
    {
      role: "tool",
      content: [{ type: "tool-result", ...ids, output: { type: "text", value: fileText(path) } }],
    },
  ];
}

/** Earlier turns of long answers, then the request (with options of its own) and its first reads. */
function history(reads: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= 10; turn += 1) {
    messages.push({ role: "user", content: `Question ${turn}: explain module m${turn}.` });
    messages.push({
      role: "assistant",
      content: `Module m${turn}: ${"it does this. ".repeat(150)}`,
    });
  }
  messages.push({ role: "user", content: REQUEST, providerOptions: CACHED });
  for (let call = 1; call <= reads; call += 1) messages.push(...read(call));
  return messages;
}

/** How many times a user message follows a user message. */
function userRuns(messages: readonly ModelMessage[]): number {
  let runs = 0;
  for (let at = 1; at < messages.length; at += 1)
    if (messages[at]!.role === "user" && messages[at - 1]!.role === "user") runs += 1;
  return runs;
}

/** The texts of a message's parts (its string as one). */
function texts(message: ModelMessage | undefined): string[] {
  const content = message?.content;
  if (typeof content === "string") return [content];
  return (content ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));
}

const count = (messages: readonly ModelMessage[], text: string) =>
  JSON.stringify(messages).split(text).length - 1;

describe("the notice and the first kept request, one user message", () => {
  it("compactModelMessages writes them as one, the notice's parts first, the request's options kept", async () => {
    const { messages } = await compactModelMessages(history(2), { contextLimit: 4_000 });
    expect(userRuns(messages)).toBe(0);
    const first = messages[0]!;
    expect(first.role).toBe("user");
    expect(texts(first)[0]).toMatch(/^\[Earlier messages were removed/);
    expect(texts(first).at(-1)).toBe(REQUEST);
    expect(first.providerOptions).toEqual(CACHED);
  });

  it("reads back apart: the notice in the summary's turn, the request opening a turn; written back the same", async () => {
    const { messages } = await compactModelMessages(history(2), { contextLimit: 4_000 });
    const ours = fromModelMessages(messages);
    expect(ours.length).toBe(messages.length + 1);
    expect(isSummaryTurn(ours[0]!.turnId)).toBe(true);
    expect(ours[1]!.turnId.number).toBe(1);
    expect(ours[1]!.content).toMatchObject([{ type: "text", text: REQUEST }]);
    expect(new Set(ours.map((message) => message.id)).size).toBe(ours.length);
    expect(toModelMessages(ours)).toEqual(messages);
    // A stateless step's reading: ids by position (the request's no position's), its estimate.
    const step = convertModelMessages(messages, {}, undefined, 0);
    expect(step.messages.slice(0, 3).map((message) => message.id)).toEqual(["0", "0.1", "1"]);
    expect(step.readApart).toEqual([0]);
    expect(step.tokens).toBe(estimateTokens(step.messages));
  });

  it("compacted again from what was sent: the notice replaced, the request kept, once", async () => {
    const { messages: sent } = await compactModelMessages(history(2), { contextLimit: 4_000 });
    // A client that keeps what was sent, the loop's next reads after it.
    const next = [...sent, ...read(3), ...read(4), ...read(5)];
    const { messages, compacted } = await compactModelMessages(next, { contextLimit: 4_000 });
    expect(compacted).toBe(true);
    expect(userRuns(messages)).toBe(0);
    expect(count(messages, TRIM_NOTICE)).toBe(1);
    // The request is the request still, not words of the user's the notice keeps.
    expect(texts(messages[0]).at(-1)).toBe(REQUEST);
    expect(count(messages, REQUEST)).toBe(1);
    expect(messages[0]!.providerOptions).toEqual(CACHED);
  });

  it("a message read apart and left as it was goes back as the caller's object", async () => {
    const { messages: sent } = await compactModelMessages(history(2), { contextLimit: 4_000 });
    const joined = sent[0]!;
    expect(texts(joined).at(-1)).toBe(REQUEST);
    // Changed after it (the new read clamped to the window), nothing before it.
    const next = [...sent, ...read(3)];
    const { messages, compacted } = await compactModelMessages(next, { contextLimit: 4_000 });
    expect(compacted).toBe(true);
    expect(messages.at(-1)).not.toBe(next.at(-1));
    expect(messages[0]).toBe(joined);
    expect(messages.slice(1, -1)).toEqual(next.slice(1, -1));
  });

  it("with a memory: each call goes on from what was sent, one user message, append-only", async () => {
    const memory = new CompactionMemory();
    let previous: string[] = [];
    let appended = 0;
    for (let reads = 2; reads <= 6; reads += 1) {
      const { messages, result } = await compactModelMessages(history(reads), {
        contextLimit: 6_000,
        memory,
      });
      expect(userRuns(messages)).toBe(0);
      expect(texts(messages[0]).at(-1)).toBe(REQUEST);
      const sent = messages.map((message) => JSON.stringify(message));
      // Where no compaction ran, what was sent before is sent again, then the new reads.
      if (isCompactionResultEmpty(result)) {
        expect(sent.slice(0, previous.length)).toEqual(previous);
        appended += 1;
      }
      previous = sent;
    }
    expect(appended).toBeGreaterThan(1);
  });

  it("a session's summary and the request it keeps: one message from toModelMessages, two read back", async () => {
    const llmCompactor = new LLMCompactor(new MockLlmClient(["The summary."]), {
      keepRecentTurns: 1,
    });
    const session = new AgentSession({ contextLimit: 100_000, llmCompactor });
    session.append(...fromModelMessages(history(2), { sessionId: session.sessionId }));
    await session.forceCompact();
    const messages = toModelMessages(session.messages);
    expect(userRuns(messages)).toBe(0);
    expect(texts(messages[0])[0]).toBe(`${SUMMARY_PREFIX}The summary.`);
    expect(texts(messages[0]).at(-1)).toBe(REQUEST);
    const back = fromModelMessages(messages);
    expect(back.slice(0, 2).map((message) => message.turnId.number)).toEqual([0, 1]);
    expect(back[1]!.content).toMatchObject([{ type: "text", text: REQUEST }]);
  });

  it("leaves an API's compaction as it is: only the library's text is joined", () => {
    const messages = toModelMessages(
      fromAnthropicMessages([
        { role: "assistant", content: [{ type: "compaction", content: "Summary." }] },
        { role: "user", content: REQUEST },
      ] as never),
    );
    expect(messages).toEqual([
      {
        role: "assistant",
        content: [
          {
            type: "text",
            text: "Summary.",
            providerOptions: { anthropic: { type: "compaction" } },
          },
        ],
      },
      { role: "user", content: [{ type: "text", text: REQUEST }] },
    ]);
  });
});
