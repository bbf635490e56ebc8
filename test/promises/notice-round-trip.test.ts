import { describe, expect, it } from "vitest";
import { compactModelMessages, toModelMessages } from "../../src/ai-sdk/index.js";
import { compactAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { compactChatMessages, toChatMessages } from "../../src/chat-completions/index.js";
import type { Message } from "../../src/core/message.js";
import { EARLIER_USER_MESSAGE_PREFIX } from "../../src/core/summary-format.js";
import { compactGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { LLMCompactor, SUMMARY_PREFIX, TRIM_NOTICE } from "../../src/index.js";
import { compactLangChainMessages, toLangChainMessages } from "../../src/langchain/index.js";
import { compactResponsesInput, toResponsesInput } from "../../src/openai/index.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import { MemoryArchive } from "../../src/store/index.js";
import { ConversationBuilder, MockLlmClient } from "../../src/testing/index.js";

// A stateless server sends back, with each request, what the last one compacted: the last
// resort's notice (and a summary) among it. Every provider's helper reads it back as what the
// library wrote (turn u0), so the next trim folds it as the session does: one notice, the
// user's words once each, never "[Earlier user message]: [Earlier user message]: …" nested
// and grown at every trim, and never the messages after it frozen into it.

interface Format {
  to: (messages: readonly Message[]) => unknown[];
  compact: (
    wire: unknown[],
    options: CompactMessagesOptions,
  ) => Promise<{ messages: unknown[]; compacted: boolean }>;
}

const FORMATS: Record<string, Format> = {
  anthropic: { to: toAnthropicMessages, compact: compactAnthropicMessages as Format["compact"] },
  responses: { to: toResponsesInput, compact: compactResponsesInput as Format["compact"] },
  gemini: { to: toGeminiContents, compact: compactGeminiContents as Format["compact"] },
  chat: { to: toChatMessages, compact: compactChatMessages as Format["compact"] },
  "ai-sdk": { to: toModelMessages, compact: compactModelMessages as Format["compact"] },
};

/** Step `step` of the agent: a new request every 8 steps, else a read of a few KB. */
function stepMessages(builder: ConversationBuilder, step: number, words: string): void {
  if (step % 8 === 1) builder.user(`Request ${step}: ${words}`);
  builder.toolCall({
    name: "read_file",
    input: { path: `src/f${step}.ts` },
    result: `// src/f${step}.ts\n${"export const value = 1;\n".repeat(100 + (step % 4) * 40)}`,
  });
}

type Wire = Record<string, unknown>;

/** What a client may do to the history it keeps between requests (each valid for its API). */
const CLIENTS: Record<string, (history: unknown[]) => unknown[]> = {
  "keeps it as sent": (history) => history,
  // Consecutive messages of one role joined into one (Anthropic, Gemini: the API's own reading).
  "joins messages of one role": (history) => {
    const joined: Wire[] = [];
    for (const message of history as Wire[]) {
      const last = joined.at(-1);
      const key = "parts" in message ? "parts" : "content";
      const items = (value: unknown) =>
        typeof value === "string" ? [{ type: "text", text: value }] : (value as unknown[]);
      if (last !== undefined && last["role"] === message["role"] && key in last)
        joined[joined.length - 1] = {
          ...last,
          [key]: [...items(last[key]), ...items(message[key])],
        };
      else joined.push(message);
    }
    return joined;
  },
  // A user message's text parts kept as one string, a blank line between.
  "joins user text": (history) =>
    (history as Wire[]).map((message) => {
      const { content } = message;
      if (message["role"] !== "user" || !Array.isArray(content) || content.length < 2)
        return message;
      const texts = content as Wire[];
      if (!texts.every((part) => part["type"] === "text" || part["type"] === "input_text"))
        return message;
      return { ...message, content: texts.map((part) => part["text"]).join("\n\n") };
    }),
  // A user message's string content sent as one text part.
  "sends user text as parts": (history) =>
    (history as Wire[]).map((message) =>
      message["role"] === "user" && typeof message["content"] === "string"
        ? { ...message, content: [{ type: "text", text: message["content"] }] }
        : message,
    ),
};

/** Which clients apply to a format (what its API takes). */
const CLIENTS_OF: Record<string, string[]> = {
  anthropic: [
    "keeps it as sent",
    "joins messages of one role",
    "joins user text",
    "sends user text as parts",
  ],
  responses: ["keeps it as sent", "joins user text"],
  gemini: ["keeps it as sent", "joins messages of one role"],
  chat: ["keeps it as sent", "joins user text", "sends user text as parts"],
  "ai-sdk": ["keeps it as sent"],
};

/** 80 steps of a stateless server: the history compacted before each, the step after what was sent. */
async function statelessRun(
  format: Format,
  client: (history: unknown[]) => unknown[] = CLIENTS["keeps it as sent"]!,
  summarize = false,
  words = "keep going. Never edit generated files.",
  archive?: MemoryArchive,
) {
  let history: unknown[] = [];
  let compactions = 0;
  for (let step = 1; step <= 80; step += 1) {
    const builder = new ConversationBuilder({ idPrefix: `s${step}-` });
    // The builder opens a turn with a user message: one made for it is left out unless asked.
    const asked = step % 8 === 1;
    if (!asked) builder.user("(left out)");
    stepMessages(builder, step, words);
    const built = builder.build();
    history = client([...history, ...format.to(asked ? built : built.slice(1))]);
    const options = {
      contextLimit: 12_000,
      ...(summarize ? { llmCompactor: new LLMCompactor(new MockLlmClient()) } : {}),
      ...(archive === undefined ? {} : { archive }),
    };
    const { messages, compacted } = await format.compact(history, options);
    if (compacted) compactions += 1;
    history = messages;
  }
  return { text: JSON.stringify(history), compactions, size: JSON.stringify(history).length };
}

describe("the last resort's notice, sent back, is folded as the session folds it", () => {
  for (const [name, format] of Object.entries(FORMATS))
    for (const client of CLIENTS_OF[name]!)
      for (const summarize of [false, true])
        it(`${name}, a client that ${client}${summarize ? ", with a summarizer" : ""}`, async () => {
          const run = await statelessRun(format, CLIENTS[client], summarize);
          expect(run.compactions).toBeGreaterThan(10);
          expect(run.text).not.toContain("[Earlier user message]: [Earlier user message]");
          expect(run.text.split(TRIM_NOTICE).length - 1).toBeLessThanOrEqual(1);
          // The window is 12k tokens: the history sent stays well inside it.
          expect(run.size / 4).toBeLessThan(12_000);
        });
});

describe("with an archive, its note is read back as the library's, never as the user's words", () => {
  // The archive ends a notice or summary with its note and recall mark, a block of its own.
  // Before, every reader took it for the first kept request: a turn of its own, kept at the
  // next trim as "[Earlier user message]: [The N earlier messages …]", one more at each.
  for (const [name, format] of Object.entries(FORMATS))
    for (const client of CLIENTS_OF[name]!)
      for (const summarize of [false, true])
        it(`${name}, a client that ${client}${summarize ? ", with a summarizer" : ""}`, async () => {
          const archive = new MemoryArchive();
          const run = await statelessRun(format, CLIENTS[client], summarize, undefined, archive);
          expect(run.compactions).toBeGreaterThan(10);
          expect(archive.records("stateless").length).toBeGreaterThan(0);
          expect(run.text).toMatch(/are archived\.\] \[recall r\d+-[0-9a-f]{4}\]/);
          expect(run.text).not.toContain(`${EARLIER_USER_MESSAGE_PREFIX}[The `);
          expect(
            run.text.split("earlier messages this stands for are archived").length - 1,
          ).toBeLessThanOrEqual(2);
          expect(run.text.split(TRIM_NOTICE).length - 1).toBeLessThanOrEqual(1);
          // The latest request stays the user's, word for word.
          expect(run.text).toContain("Request 73: keep going. Never edit generated files.");
        });
});

describe("a notice made under a larger window", () => {
  it("is folded again when the next request goes to a smaller window, nothing else to remove", async () => {
    for (const [name, format] of Object.entries(FORMATS)) {
      // 60 long requests, answered, under a 400k window: the last resort leaves its notice.
      const builder = new ConversationBuilder();
      for (let turn = 1; turn <= 60; turn += 1)
        builder
          .user(`Request ${turn}: ${`note ${turn} `.repeat(1_500)}`)
          .assistant(`Answer ${turn}.`);
      builder.user("Now sum up what we did.");
      const large = await format.compact(format.to(builder.build()), {
        contextLimit: 400_000,
        contextUsed: 390_000,
      });
      expect(large.compacted, name).toBe(true);
      // The notice, a reply and a new request, sent to a model of a 16k window.
      const tail = new ConversationBuilder()
        .user("(left out)")
        .assistant("Done.")
        .user("Continue.");
      const next = [large.messages[0]!, ...format.to(tail.build().slice(1))];
      const small = await format.compact(next, { contextLimit: 16_000 });
      expect(small.compacted, name).toBe(true);
      expect(JSON.stringify(small.messages).length / 4, name).toBeLessThan(16_000);
    }
  });
});

describe("the user's words that look like the library's stay the user's", () => {
  // Each request quotes old context that reads like the library's: at its start (A), or after
  // a blank line (B). Read as the library's (turn u0), it would never be trimmed, and what is
  // sent would outgrow the window.
  const requests: Record<string, (step: number, body: string) => string> = {
    "led by a prefix": (step, body) =>
      `${EARLIER_USER_MESSAGE_PREFIX}${body}\n\nThat is what I said; apply it to module ${step}.`,
    "holding a summary's prefix": (step, body) =>
      `Apply this to module ${step}. Old context I saved:\n\n${SUMMARY_PREFIX}${body}`,
  };
  for (const name of ["chat", "responses", "anthropic", "gemini", "ai-sdk"])
    for (const [kind, request] of Object.entries(requests))
      it(`${name}, requests ${kind}`, async () => {
        const format = FORMATS[name]!;
        let history: unknown[] = [];
        let largest = 0;
        for (let step = 1; step <= 60; step += 1) {
          const turn = new ConversationBuilder({ idPrefix: `s${step}-` })
            .user(request(step, `item ${step} `.repeat(300)))
            .assistant(`Done with module ${step}. ${"detail ".repeat(200)}`)
            .build();
          history = [...history, ...format.to(turn)];
          history = (await format.compact(history, { contextLimit: 12_000 })).messages;
          largest = Math.max(largest, JSON.stringify(history).length / 4);
        }
        expect(largest).toBeLessThan(12_000);
      });
});

describe("a first request led by the notice's line stays the user's request", () => {
  // The library writes its notice's first line as a block alone, its records after it each
  // with a heading: a user's text that starts with the line and goes on with other words (or a
  // client that joined the kept request onto a notice of no records) is the user's request,
  // kept as the latest one however much is trimmed. Before, read whole as the notice, the next
  // trim folded it away.
  const DIRECTIVE = "Never delete the production database. Fix the failing build in src/app.ts.";
  const formats: Record<string, Format> = {
    ...FORMATS,
    langchain: {
      to: toLangChainMessages,
      compact: compactLangChainMessages as unknown as Format["compact"],
    },
  };
  for (const [name, format] of Object.entries(formats))
    for (const separator of ["\n\n", "\n"])
      it(`${name}, ${JSON.stringify(separator)} after the line`, async () => {
        const builder = new ConversationBuilder().user(`${TRIM_NOTICE}${separator}${DIRECTIVE}`);
        for (let call = 1; call <= 9; call += 1)
          builder.toolCall({
            name: "read_file",
            input: { path: `src/f${call}.ts` },
            result: "z".repeat(2_500),
          });
        const { messages, compacted } = await format.compact(format.to(builder.build()), {
          contextLimit: 6_000,
        });
        expect(compacted).toBe(true);
        expect(JSON.stringify(messages)).toContain(DIRECTIVE);
      });
});

describe("a request led by the archive's note's words (without its mark) stays the user's", () => {
  // The library writes its note with the recall mark, as a block of its own: a user's request
  // that quotes the note is the user's, however the writer merges it with the notice. Found by
  // a review: read as the library's, the next trim folded the request away.
  const REQUEST =
    "[The 3 earlier messages this stands for are archived.] What does this line mean? Also delete build/ first.";
  for (const name of ["anthropic", "responses", "gemini", "chat"])
    it(name, async () => {
      const format = FORMATS[name]!;
      const builder = new ConversationBuilder().user("Read all the files.");
      for (let read = 0; read < 40; read += 1)
        builder.toolCall({
          name: "read_file",
          input: { path: `f${read}.ts` },
          result: "export const v = 1;\n".repeat(200),
        });
      builder.assistant("Read them.").user(REQUEST);
      builder.toolCall({ name: "read_file", input: { path: "g.ts" }, result: "w\n".repeat(50) });
      const archive = new MemoryArchive();
      let history = format.to(builder.build());
      for (let round = 0; round < 4; round += 1) {
        const { messages, compacted } = await format.compact(history, {
          contextLimit: 16_000,
          archive,
        });
        expect(compacted, `round ${round}`).toBe(true);
        expect(JSON.stringify(messages), `round ${round}`).toContain("delete build/ first");
        const steps = new ConversationBuilder({ idPrefix: `r${round}-` }).user("(left out)");
        for (let read = 0; read < 12; read += 1)
          steps.toolCall({
            name: "read_file",
            input: { path: `r${round}_${read}.ts` },
            result: "export const z = 3;\n".repeat(150),
          });
        history = [...messages, ...format.to(steps.build().slice(1))];
      }
    });
});
