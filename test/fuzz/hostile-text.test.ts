import { describe, expect, it } from "vitest";
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
// path of the library super-linear. Each string is about a megabyte; every path gets a generous
// bound, 2 s for each megabyte it is handed (a call handed the string in three places gets 6 s),
// where a linear path takes milliseconds to a few hundred. Before the facts check was fixed,
// 40,000 dots followed by a letter took 3.2 s there (a megabyte: about half an hour).
const SIZE = 1_000_000;
const BOUND_MS_PER_MEGABYTE = 2000;

function repeat(unit: string, end = "x"): string {
  return unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE) + end;
}

function distinct(make: (index: number) => string): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; length < SIZE; index += 1) {
    const part = make(index);
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
}

const HOSTILE: Record<string, string> = {
  dots: repeat("."),
  dashes: repeat("-"),
  slashes: repeat("/"),
  backslashes: repeat("\\"),
  spaces: repeat(" "),
  newlines: repeat("\n"),
  "crlf and tabs": repeat("\r\n\t "),
  punctuation: repeat(".,;:!?"),
  "closing punctuation after words": repeat("a.b.c!? "),
  "nested brackets": `${"[({<".repeat(SIZE / 8)}${">})]".repeat(SIZE / 8)}`,
  "unclosed brackets": repeat("[(["),
  "one long word": repeat("a", ""),
  "letters and dots": repeat("a."),
  "digits and dots": repeat("1.", "-"),
  "colon digits": repeat(":1"),
  "camel case": repeat("aB"),
  "snake case": repeat("a_"),
  "hex and dashes": repeat("0123-"),
  "a url without end": `http://${repeat("a.")}`,
  "url-like schemes": repeat("a+.-"),
  "section-like lines": repeat("- constraint: keep it (from tool call x)\n"),
  "ledger-like lines": repeat("- edited src/a.ts (from x)\n"),
  "earlier-user tags": repeat("[Earlier user message]: "),
  "recall marks": repeat("[recall r1-abcd]"),
  "open recall mark": `[recall r${repeat("1", "")}`,
  "transcript tags": repeat("<tool_output></tool_output><conversation>"),
  "rule words": repeat("never don't always only must "),
  "numbered lines": repeat("1. never\n"),
  "distinct constraints": distinct((index) => `Never touch step ${index}.\n`),
  "distinct identifiers": distinct((index) => `tok_${index} `),
  "distinct paths": distinct((index) => `src/m${index}/file-${index}.ts `),
  "distinct long version tokens": distinct((index) => `${index}.${"1.".repeat(120)}-x `),
  "quotes and equals": repeat("'\"`=,;|*"),
  "surrogates and curly quotes": repeat("’\uD83D\uDE00"),
};

/** Runs `run` (handed `copies` megabytes of hostile text) and fails it above the bound. */
async function withinBound(label: string, copies: number, run: () => unknown): Promise<void> {
  const start = performance.now();
  await run();
  const elapsed = performance.now() - start;
  expect(elapsed, `${label} took ${Math.round(elapsed)} ms`).toBeLessThan(
    BOUND_MS_PER_MEGABYTE * copies,
  );
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

const cases = Object.entries(HOSTILE);

describe("hostile text: every text path stays linear (a megabyte each, < 2 s)", () => {
  it.each(cases)("the facts check: %s", async (label, text) => {
    const folded = conversationWith(text).build();
    const kept = new ConversationBuilder().user(text).build();
    await withinBound(`extractFacts(${label})`, 5, () => extractFacts(folded));
    await withinBound(`checkSummaryFacts(${label})`, 7, () =>
      checkSummaryFacts({ folded, summary: text, kept, maxTokens: 2000, cite: true }),
    );
  });

  it("the facts check: many distinct facts against a megabyte that holds none", async () => {
    const folded = new ConversationBuilder().user(HOSTILE["distinct identifiers"]!).build();
    for (const summary of [HOSTILE.dots!, HOSTILE["one long word"]!, HOSTILE["distinct paths"]!])
      await withinBound("checkSummaryFacts(facts × text)", 2, () =>
        checkSummaryFacts({ folded, summary, kept: [], maxTokens: 2000, cite: true }),
      );
  });

  it.each(cases)("the transcript, the summary message and the ledger: %s", async (label, text) => {
    const messages = conversationWith(text).build();
    const earlier = summaryMessage(text, [text], { sessionId: "s", clock: () => new Date(0) }, [
      text,
      `${LEDGER_HEADING}\n${text}`,
    ]);
    await withinBound(`formatTranscript(${label})`, 9, () =>
      formatTranscript([earlier, ...messages], new Map(), {
        maxToolInputChars: 2000,
        maxToolResultChars: 4000,
        maxChars: 200_000,
      }),
    );
    await withinBound(`userWordsToKeep(${label})`, 9, () =>
      userWordsToKeep([earlier, ...messages], 20_000),
    );
    await withinBound(`file ledger(${label})`, 9, () =>
      renderFileLedger(collectFileLedger([earlier, ...messages]), 8000),
    );
    await withinBound(`estimateTokens(${label})`, 9, () => estimateTokens([earlier, ...messages]));
    await withinBound(`validateConversation(${label})`, 5, () =>
      validateConversation([
        ...messages.slice(0, 3),
        { ...messages[3]!, content: [{ type: "text", text: `${text} ` }] },
      ]),
    );
    await withinBound(`recallHandleIn(${label})`, 1, () => recallHandleIn(text));
    await withinBound(`pathMentions(${label})`, 1, () => pathMentions(text));
  });

  it.each(cases)(
    "masking and a session's clamp, compaction and summary: %s",
    async (label, text) => {
      const masked = conversationWith("again", conversationWith(text)).build();
      await withinBound(`ThresholdCompactor.compact(${label})`, 5, () =>
        new ThresholdCompactor({ toolCompaction: "redact", keepRecentTurns: 1 }).compact(
          masked,
          new Map(),
        ),
      );
      // A 200k window: the megabyte is clamped to its head and tail as it is appended.
      const small = new AgentSession({ contextLimit: 200_000 });
      await withinBound(`clamp(${label})`, 2, () => {
        small.addUserText(text);
        small.addAssistant([{ type: "tool_use", id: "t1", name: "read", input: { path: "a" } }]);
        small.addToolResults([{ type: "tool_result", toolUseId: "t1", content: text }]);
      });
      // A window the megabyte fits: the whole text goes through the fold, and the summary
      // the model returns is the hostile text itself.
      const large = new AgentSession({
        contextLimit: 4_000_000,
        compactor: false,
        llmCompactor: new LLMCompactor(new MockLlmClient({ defaultReply: text }), {
          keepRecentTurns: 1,
          maxTranscriptTokens: 400_000,
        }),
      });
      large.addUserText(text);
      large.addAssistant([
        { type: "text", text },
        { type: "tool_use", id: "t1", name: "edit_file", input: { path: text, command: text } },
      ]);
      large.addToolResults([{ type: "tool_result", toolUseId: "t1", content: text }]);
      large.addAssistant([{ type: "text", text: "done" }]);
      large.addUserText("go on");
      await withinBound(`forceCompact(${label})`, 6, () => large.forceCompact());
      expect(large.messages.length).toBeGreaterThan(0);
    },
  );
});
