import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { modelMessageSchema } from "ai";
import { describe, expect, it } from "vitest";
import { chatMessagesProblem } from "../../examples/support/chat-completions-rules.js";
import { geminiContentsProblem } from "../../examples/support/gemini-rules.js";
import { checkRequest } from "../../examples/support/loopback-checks.js";
import {
  compactModelMessages,
  fromModelMessages,
  toModelMessages,
} from "../../src/ai-sdk/index.js";
import {
  compactAnthropicMessages,
  fromAnthropicMessages,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import {
  compactChatMessages,
  fromChatMessages,
  toChatMessages,
} from "../../src/chat-completions/index.js";
import { isCompactionResultEmpty } from "../../src/core/compactor.js";
import {
  compactGeminiContents,
  fromGeminiContents,
  toGeminiContents,
} from "../../src/gemini/index.js";
import { estimateTokens, type Message } from "../../src/index.js";
import {
  compactResponsesInput,
  fromResponsesInput,
  toResponsesInput,
} from "../../src/openai/index.js";
import { CompactionMemory } from "../../src/store/index.js";
import { responsesInputProblem } from "../support/openai-responses-server.js";

/**
 * The seven published agent runs (`../shared/realdata`) through each one-call helper as a
 * stateless server with a `CompactionMemory` calls it: before each recorded reply, the whole
 * history so far in the helper's format, parsed anew (a request body), a 20k window. Each
 * request it sends must pass the loopback stand-in's rules of its API, fit the window by the
 * library's estimate, and, when no compaction ran at that request, start with the request
 * before it (append-only: the prompt cache reads it). Where the format wants roles to alternate
 * (Messages, Chat Completions hosts with a strict template, Gemini, and the AI SDK's messages,
 * which `@ai-sdk/google` sends as Gemini contents) it must write no two user messages in a row
 * where the caller wrote none; not checked for the Responses API's items, which it takes.
 */
const REALDATA =
  process.env["REALDATA_DIR"] ??
  fileURLToPath(new URL("../../../shared/realdata", import.meta.url));
const WINDOW = 20_000;
const HAVE_DATA = existsSync(REALDATA);

/** A helper: its format's writer and reader, the call, and its API's rules (a problem or `undefined`). */
interface Helper {
  name: string;
  to: (messages: Message[]) => unknown[];
  from: (wire: unknown[]) => Message[];
  compact: (
    wire: unknown[],
    options: { contextLimit: number; memory: CompactionMemory },
  ) => Promise<{
    messages: unknown[];
    compacted: boolean;
    result: Parameters<typeof isCompactionResultEmpty>[0];
  }>;
  problem: (wire: unknown[]) => string | undefined;
  /**
   * Whether the library writes no two user messages in a row where the caller wrote none
   * (Chat Completions hosts with a strict chat template refuse them).
   */
  alternates: boolean;
}

type AnyCompact = (wire: never, options: never) => Promise<unknown>;
const loose = (compact: AnyCompact) => compact as unknown as Helper["compact"];
const anyFrom = (from: (wire: never) => Message[]) => from as unknown as Helper["from"];

function anthropicProblem(messages: unknown[]): string | undefined {
  const body = { model: "claude-sonnet-5-5", max_tokens: 1024, messages };
  const recorded = {
    endpoint: "messages",
    method: "POST",
    path: "/v1/messages",
    headers: {},
    body,
  };
  const checked = checkRequest(recorded as never, "messages", { preservedThinking: "off" });
  if (!("refusal" in checked)) return undefined;
  const { refusal } = checked;
  return refusal.type === "error" ? refusal.message : "refused";
}

const HELPERS: Helper[] = [
  {
    name: "compactAnthropicMessages",
    alternates: true,
    to: toAnthropicMessages,
    from: anyFrom(fromAnthropicMessages),
    compact: loose(compactAnthropicMessages),
    problem: anthropicProblem,
  },
  {
    name: "compactChatMessages",
    alternates: true,
    to: (messages) => toChatMessages(messages),
    from: anyFrom(fromChatMessages),
    compact: loose(compactChatMessages),
    problem: (messages) =>
      chatMessagesProblem(messages, { reasoning: "ignored", issuedReasoning: new Map() })?.message,
  },
  {
    name: "compactGeminiContents",
    alternates: true,
    to: toGeminiContents,
    from: anyFrom(fromGeminiContents),
    compact: loose(compactGeminiContents),
    problem: (contents) =>
      geminiContentsProblem(contents, { model: "gemini-2.5-flash", issued: new Map() }),
  },
  {
    name: "compactResponsesInput",
    alternates: false,
    to: (messages) => toResponsesInput(messages),
    from: anyFrom(fromResponsesInput),
    compact: loose(compactResponsesInput),
    problem: (input) =>
      responsesInputProblem(input, { encrypted: new Map(), requiresReasoning: new Map() })?.message,
  },
  {
    name: "compactModelMessages",
    alternates: true,
    to: toModelMessages,
    from: anyFrom(fromModelMessages),
    compact: loose(compactModelMessages),
    problem: (messages) => {
      const at = messages.findIndex((message) => !modelMessageSchema.safeParse(message).success);
      return at === -1 ? undefined : `messages[${at}] is not a ModelMessage`;
    },
  },
];

/** How many times a user message follows a user message (`role`, Gemini's included). */
function userRuns(messages: readonly unknown[]): number {
  let runs = 0;
  const roleOf = (at: number) => (messages[at] as { role?: unknown }).role;
  for (let at = 1; at < messages.length; at += 1)
    if (roleOf(at) === "user" && roleOf(at - 1) === "user") runs += 1;
  return runs;
}

/** What a helper did over every run: counts, and the first few problems where they were. */
interface Tally {
  requests: number;
  /** Requests at which a compaction ran. */
  compactions: number;
  /** Requests sent other than the history given (compacted now or before). */
  compacted: number;
  problems: string[];
}

async function serve(helper: Helper, runs: Message[][]): Promise<Tally> {
  const tally: Tally = { requests: 0, compactions: 0, compacted: 0, problems: [] };
  for (const [run, ours] of runs.entries()) {
    const memory = new CompactionMemory();
    let previous: string[] | undefined;
    for (let end = 1; end <= ours.length; end += 1) {
      // A request before each recorded reply, and one after the last message.
      if (ours[end - 1]!.role !== "user" || (end < ours.length && ours[end]!.role !== "assistant"))
        continue;
      const body = JSON.parse(JSON.stringify(helper.to(ours.slice(0, end)))) as unknown[];
      tally.requests += 1;
      const where = `run ${run}, request at message ${end}`;
      const sending = await helper.compact(body, { contextLimit: WINDOW, memory });
      const { messages } = sending;
      const ran = !isCompactionResultEmpty(sending.result);
      if (ran) tally.compactions += 1;
      if (sending.compacted) tally.compacted += 1;
      const problem = helper.problem(messages);
      if (problem !== undefined) tally.problems.push(`${where}: ${problem}`);
      if (helper.alternates && userRuns(messages) > userRuns(body))
        tally.problems.push(`${where}: two user messages in a row`);
      const tokens = estimateTokens(helper.from(messages));
      if (tokens > WINDOW) tally.problems.push(`${where}: ${tokens} tokens`);
      const sent = messages.map((message) => JSON.stringify(message));
      if (!ran && previous !== undefined && previous.some((text, at) => sent[at] !== text))
        tally.problems.push(`${where}: the request before is no longer its prefix`);
      previous = sent;
    }
  }
  return tally;
}

describe.skipIf(!HAVE_DATA)(
  `real agent runs through each one-call helper with a memory, 20k window (needs ${REALDATA})`,
  () => {
    const runs = HAVE_DATA
      ? readdirSync(REALDATA)
          .filter((file) => file.endsWith(".json"))
          .sort()
          .map((file) => {
            const run = JSON.parse(readFileSync(`${REALDATA}/${file}`, "utf8")) as {
              messages: unknown[];
            };
            return fromAnthropicMessages(run.messages as never);
          })
      : [];

    it.each(HELPERS)(
      "$name: every request valid for its API, within the window, append-only between compactions",
      async (helper) => {
        expect(runs).toHaveLength(7);
        const tally = await serve(helper, runs);
        expect(tally.problems.slice(0, 5)).toEqual([]);
        // One request per recorded reply, dozens of compactions, most requests sent compacted:
        // the checks are not vacuous.
        expect(tally.requests).toBeGreaterThan(900);
        expect(tally.compactions).toBeGreaterThan(30);
        expect(tally.compacted).toBeGreaterThan(tally.requests / 2);
      },
      240_000,
    );
  },
);
