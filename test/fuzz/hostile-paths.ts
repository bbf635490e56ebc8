import { checkSummaryFacts, extractFacts } from "../../src/compactors/facts-check.js";
import {
  collectFileLedger,
  LEDGER_HEADING,
  renderFileLedger,
} from "../../src/compactors/file-ledger.js";
import { pathMentions } from "../../src/compactors/path-mentions.js";
import { summaryMessage, userWordsToKeep } from "../../src/compactors/summary-message.js";
import { formatTranscript } from "../../src/compactors/transcript.js";
import { estimateTokens } from "../../src/core/message-memo.js";
import {
  AgentSession,
  LLMCompactor,
  ThresholdCompactor,
  validateConversation,
} from "../../src/index.js";
import { recallHandleIn } from "../../src/internal/recall-mark.js";
import { ConversationBuilder, MockLlmClient } from "../../src/testing/index.js";

// Issue 22 §6: untrusted text (tool output, summaries, the user's words) must never make a
// path of the library super-linear. These are the hostile texts and the paths they go through;
// hostile-text.test.ts runs each path on each text at two sizes and compares the work counted.

/** `unit` repeated to `size` characters, then `end`. */
function repeat(size: number, unit: string, end = "x"): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size) + end;
}

/** Distinct parts made by `make`, joined, until they reach `size` characters. */
function distinct(size: number, make: (index: number) => string): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; length < size; index += 1) {
    const part = make(index);
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
}

/** The hostile texts, each about `size` characters (a multiple of 8). */
export function hostileTexts(size: number): Record<string, string> {
  const r = (unit: string, end?: string) => repeat(size, unit, end);
  return {
    dots: r("."),
    dashes: r("-"),
    slashes: r("/"),
    backslashes: r("\\"),
    spaces: r(" "),
    newlines: r("\n"),
    "crlf and tabs": r("\r\n\t "),
    punctuation: r(".,;:!?"),
    "closing punctuation after words": r("a.b.c!? "),
    "nested brackets": `${"[({<".repeat(size / 8)}${">})]".repeat(size / 8)}`,
    "unclosed brackets": r("[(["),
    "one long word": r("a", ""),
    "letters and dots": r("a."),
    "digits and dots": r("1.", "-"),
    "colon digits": r(":1"),
    "camel case": r("aB"),
    "snake case": r("a_"),
    "hex and dashes": r("0123-"),
    "a url without end": `http://${r("a.")}`,
    "url-like schemes": r("a+.-"),
    "section-like lines": r("- constraint: keep it (from tool call x)\n"),
    "ledger-like lines": r("- edited src/a.ts (from x)\n"),
    "earlier-user tags": r("[Earlier user message]: "),
    "recall marks": r("[recall r1-abcd]"),
    "open recall mark": `[recall r${r("1", "")}`,
    "transcript tags": r("<tool_output></tool_output><conversation>"),
    "rule words": r("never don't always only must "),
    "numbered lines": r("1. never\n"),
    "distinct constraints": distinct(size, (index) => `Never touch step ${index}.\n`),
    "distinct identifiers": distinct(size, (index) => `tok_${index} `),
    "distinct paths": distinct(size, (index) => `src/m${index}/file-${index}.ts `),
    "distinct long version tokens": distinct(size, (index) => `${index}.${"1.".repeat(120)}-x `),
    "quotes and equals": r("'\"`=,;|*"),
    "surrogates and curly quotes": r("’\uD83D\uDE00"),
  };
}

/**
 * A conversation carrying `text` everywhere untrusted text goes: the user's words, a tool
 * input's path and command, a tool output, the assistant's reply (5 copies), then a short turn.
 */
function conversationWith(text: string, builder = new ConversationBuilder()): ConversationBuilder {
  return builder
    .user(text)
    .toolCall({ name: "edit_file", input: { path: text, command: text }, result: text })
    .assistant(text)
    .user("next")
    .toolCall({ name: "read", input: { path: "src/a.ts" }, result: "ok" })
    .assistant("done");
}

const FACTS = "the facts check";
const TEXTS = "the transcript, the summary message and the ledger";
const SESSION = "masking and a session's clamp, compaction and summary";

/**
 * A budget of the library's, `atMegabyte` for a text of a megabyte, for a text of `size`
 * characters: budgets grow with the text, so each size meets the same caps as a megabyte did
 * (a text twice a budget is clipped at any size), and linear work grows as the text does.
 */
function scaled(atMegabyte: number, size: number): number {
  return Math.round((atMegabyte * size) / 1_000_000);
}

/** One path of the library: `prepare` builds its input (not counted) and returns the call. */
export interface HostilePath {
  name: string;
  /** The part of the library it belongs to (one test for each part and text). */
  group: string;
  /** The one hostile text it runs on, by name. @default every one */
  text?: string;
  prepare: (text: string, size: number) => () => unknown;
}

/** Every text path untrusted text reaches, each handed the text in every place it can go. */
export const HOSTILE_PATHS: readonly HostilePath[] = [
  {
    name: "extractFacts",
    group: FACTS,
    prepare: (text) => {
      const folded = conversationWith(text).build();
      return () => extractFacts(folded);
    },
  },
  {
    name: "checkSummaryFacts",
    group: FACTS,
    prepare: (text, size) => {
      const folded = conversationWith(text).build();
      const kept = new ConversationBuilder().user(text).build();
      const maxTokens = scaled(2000, size);
      return () => checkSummaryFacts({ folded, summary: text, kept, maxTokens, cite: true });
    },
  },
  {
    name: "many distinct facts against texts that hold none",
    group: FACTS,
    text: "distinct identifiers",
    prepare: (text, size) => {
      const texts = hostileTexts(size);
      const folded = new ConversationBuilder().user(text).build();
      const summaries = [texts["dots"]!, texts["one long word"]!, texts["distinct paths"]!];
      const maxTokens = scaled(2000, size);
      return () => {
        for (const summary of summaries)
          checkSummaryFacts({ folded, summary, kept: [], maxTokens, cite: true });
      };
    },
  },
  {
    name: "formatTranscript",
    group: TEXTS,
    prepare: (text, size) => {
      const messages = withEarlierSummary(text);
      return () =>
        formatTranscript(messages, new Map(), {
          maxToolInputChars: 2000,
          maxToolResultChars: 4000,
          maxChars: scaled(200_000, size),
        });
    },
  },
  {
    name: "userWordsToKeep",
    group: TEXTS,
    prepare: (text, size) => {
      const messages = withEarlierSummary(text);
      return () => userWordsToKeep(messages, scaled(20_000, size));
    },
  },
  {
    name: "file ledger",
    group: TEXTS,
    prepare: (text, size) => {
      const messages = withEarlierSummary(text);
      return () => renderFileLedger(collectFileLedger(messages), scaled(8000, size));
    },
  },
  {
    name: "estimateTokens",
    group: TEXTS,
    prepare: (text) => {
      const messages = withEarlierSummary(text);
      return () => estimateTokens(messages);
    },
  },
  {
    name: "validateConversation",
    group: TEXTS,
    prepare: (text) => {
      const messages = conversationWith(text).build();
      const conversation = [
        ...messages.slice(0, 3),
        { ...messages[3]!, content: [{ type: "text" as const, text: `${text} ` }] },
      ];
      return () => validateConversation(conversation);
    },
  },
  { name: "recallHandleIn", group: TEXTS, prepare: (text) => () => recallHandleIn(text) },
  { name: "pathMentions", group: TEXTS, prepare: (text) => () => pathMentions(text) },
  {
    name: "ThresholdCompactor.compact",
    group: SESSION,
    prepare: (text) => {
      const masked = conversationWith("again", conversationWith(text)).build();
      const compactor = new ThresholdCompactor({ toolCompaction: "redact", keepRecentTurns: 1 });
      return () => compactor.compact(masked, new Map());
    },
  },
  {
    // A window of a fifth of a token a character: the text is clamped to its head and tail.
    name: "a session's clamp",
    group: SESSION,
    prepare: (text, size) => {
      const session = new AgentSession({ contextLimit: scaled(200_000, size) });
      return () => {
        session.addUserText(text);
        session.addAssistant([{ type: "tool_use", id: "t1", name: "read", input: { path: "a" } }]);
        session.addToolResults([{ type: "tool_result", toolUseId: "t1", content: text }]);
      };
    },
  },
  {
    // A window the text fits: it goes through the fold whole, and the summary the model
    // returns is the hostile text itself (within maxSummaryTokens: one far over it is refused).
    name: "a session's forced fold",
    group: SESSION,
    prepare: (text, size) => {
      const session = new AgentSession({
        contextLimit: scaled(4_000_000, size),
        compactor: false,
        llmCompactor: new LLMCompactor(new MockLlmClient({ defaultReply: text }), {
          keepRecentTurns: 1,
          maxTranscriptTokens: scaled(400_000, size),
          maxSummaryTokens: scaled(250_000, size),
        }),
      });
      session.addUserText(text);
      session.addAssistant([
        { type: "text", text },
        { type: "tool_use", id: "t1", name: "edit_file", input: { path: text, command: text } },
      ]);
      session.addToolResults([{ type: "tool_result", toolUseId: "t1", content: text }]);
      session.addAssistant([{ type: "text", text: "done" }]);
      session.addUserText("go on");
      return async () => {
        await session.forceCompact();
        if (session.messages.length === 0) throw new Error("the fold lost every message");
      };
    },
  },
];

/** The conversation of `text` after an earlier summary that carries it (its words and ledger). */
function withEarlierSummary(text: string) {
  const earlier = summaryMessage(text, [text], { sessionId: "s", clock: () => new Date(0) }, [
    text,
    `${LEDGER_HEADING}\n${text}`,
  ]);
  return [earlier, ...conversationWith(text).build()];
}
