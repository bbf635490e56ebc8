/**
 * What part 6 of `npm run bench` times beside `pruneMessages` (issue 31, "Speed"): the library's
 * calls on a conversation it has never seen (first sight, as a server that gets the whole
 * history with each request), through the core API and through each adapter's stateless path,
 * and the core API on an array it has seen (warm). Each contender makes its input untimed and
 * runs the job of part 3: the output of every tool result older than the last 3 turns replaced
 * by a notice (`pruneMessages` removes them), the last 3 turns whole.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { type ModelMessage, pruneMessages } from "ai";
import { compactModelMessages } from "../src/ai-sdk/index.js";
import { compactAnthropicMessages, toAnthropicMessages } from "../src/anthropic/index.js";
import { compactChatMessages, toChatMessages } from "../src/chat-completions/index.js";
import { compactGeminiContents, toGeminiContents } from "../src/gemini/index.js";
import {
  estimateTokens,
  type Message,
  REDACTION_NOTICE,
  ThresholdCompactor,
} from "../src/index.js";
import { compactLangChainMessages } from "../src/langchain/index.js";
import { compactResponsesInput, toResponsesInput } from "../src/openai/index.js";
import {
  buildPeerWorkload,
  KEEP_RECENT_TURNS,
  type PeerWorkload,
  toLangChainMessages,
} from "./peers.js";

/** The contenders, in the order the report lists them. */
export const CONTENDERS = [
  "core",
  "warm",
  "ai-sdk",
  "langchain",
  "anthropic",
  "openai",
  "gemini",
  "chat-completions",
] as const;

/** A contender's name. */
export type ContenderName = (typeof CONTENDERS)[number];

/** What the report and the README say each contender runs. */
export const CONTENDER_CALLS: Record<ContenderName, string> = {
  core: 'new ThresholdCompactor({ toolCompaction: "redact", keepRecentTurns: 3 }).compact(copy, new Map()), copy a deep copy of the conversation',
  warm: "the same compact on the same array each run (compacted once before: already seen)",
  "ai-sdk":
    "compactModelMessages(copy, { contextLimit, contextUsed, compactor, trimOnOverflow: false }) (agent-compaction/ai-sdk)",
  langchain:
    "compactLangChainMessages(messages, { contextLimit, compactor, maxBlockShare: 1, trimOnOverflow: false }) on new BaseMessage objects (agent-compaction/langchain)",
  anthropic:
    "compactAnthropicMessages(copy, { contextLimit, contextUsed, compactor, trimOnOverflow: false }) (agent-compaction/anthropic)",
  openai:
    "compactResponsesInput(copy, { contextLimit, contextUsed, compactor, trimOnOverflow: false }) (agent-compaction/openai)",
  gemini:
    "compactGeminiContents(copy, { contextLimit, contextUsed, compactor, trimOnOverflow: false }) (agent-compaction/gemini)",
  "chat-completions":
    "compactChatMessages(copy, { contextLimit, contextUsed, compactor, trimOnOverflow: false }) (agent-compaction/chat-completions)",
};

/** Whether a contender's target is first sight (at most 2x) or warm (at most 0.5x). */
export const isWarm = (name: ContenderName): boolean => name === "warm";

/** One contender, ready to run: its input is made (untimed) before each run. */
export interface Contender {
  /** A new input: what the library has never seen (the warm one: the same array). */
  input: () => unknown;
  /** The timed call. */
  run: (input: unknown) => unknown;
  /** Tool results still full in what `run` returned (checked untimed). */
  fullResults: (output: unknown) => number;
}

/**
 * New objects and arrays all the way down (Dates too), the strings shared: what the library
 * has never seen. A request body parsed from JSON also has new strings.
 */
export function deepCopy<T>(value: T, depth = 0): T {
  if (typeof value !== "object" || value === null || depth > 64) return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map((item) => deepCopy(item, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = deepCopy(item, depth + 1);
  return out as T;
}

/** The tool results whose output is not the notice, of a conversation in any format. */
function fullResultsOf(toolResults: number): (output: unknown) => number {
  return (output) => {
    const text = JSON.stringify(output);
    let redacted = 0;
    for (
      let at = text.indexOf(REDACTION_NOTICE);
      at !== -1;
      at = text.indexOf(REDACTION_NOTICE, at + 1)
    )
      redacted += 1;
    return toolResults - redacted;
  };
}

/** `pruneMessages` on a deep copy of the conversation as the AI SDK's messages: the baseline. */
export function pruneContender(workload: PeerWorkload, fresh: boolean): Contender {
  const toolCalls = `before-last-${workload.pruneKeepLast}-messages` as const;
  return {
    input: () => (fresh ? deepCopy(workload.modelMessages) : workload.modelMessages),
    run: (input) => pruneMessages({ messages: input as ModelMessage[], toolCalls }),
    fullResults: (output) => {
      let full = 0;
      for (const message of output as ModelMessage[])
        if (message.role === "tool")
          for (const part of message.content) if (part.type === "tool-result") full += 1;
      return full;
    },
  };
}

/** Compacts our messages as every contender does: redact, the last 3 turns whole. */
function coreCompaction(): (messages: Message[]) => Message[] {
  const compactor = new ThresholdCompactor({
    toolCompaction: "redact",
    keepRecentTurns: KEEP_RECENT_TURNS,
  });
  return (messages) => compactor.compact(messages, new Map()).conversation;
}

/**
 * The options of every one-call helper here: a context at 90% of a window far larger than any
 * block, so the compactor runs, masking all it may, no text is clamped and the last resort is
 * off: the job stays pruneMessages'.
 */
function helperOptions() {
  return {
    contextLimit: 10_000_000,
    contextUsed: 9_000_000,
    compactor: new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentTurns: KEEP_RECENT_TURNS,
    }),
    trimOnOverflow: false,
  };
}

/** A one-call helper on its format's messages, copied fresh for each run. */
function throughHelper<Wire>(
  workload: PeerWorkload,
  wire: Wire[],
  helper: (
    input: Wire[],
    options: ReturnType<typeof helperOptions>,
  ) => Promise<{ messages: unknown[] }>,
): Contender {
  const options = helperOptions();
  return {
    input: () => deepCopy(wire),
    run: async (input) => (await helper(input as Wire[], options)).messages,
    fullResults: fullResultsOf(workload.toolResults),
  };
}

/** The contender `name` on `workload`. */
export function contender(name: ContenderName, workload: PeerWorkload): Contender {
  const { conversation } = workload;
  const full = fullResultsOf(workload.toolResults);
  switch (name) {
    case "core": {
      const compact = coreCompaction();
      return {
        input: () => deepCopy(conversation),
        run: (input) => compact(input as Message[]),
        fullResults: full,
      };
    }
    case "warm": {
      const compact = coreCompaction();
      compact(conversation);
      return {
        input: () => conversation,
        run: (input) => compact(input as Message[]),
        fullResults: full,
      };
    }
    case "ai-sdk":
      return throughHelper(workload, workload.modelMessages, compactModelMessages);
    case "langchain": {
      // A window the conversation is just over the compactor's threshold of.
      const options = {
        contextLimit: Math.ceil(estimateTokens(conversation) / 0.8),
        compactor: new ThresholdCompactor({
          toolCompaction: "redact",
          keepRecentTurns: KEEP_RECENT_TURNS,
        }),
        maxBlockShare: 1,
        trimOnOverflow: false,
      };
      return {
        input: (): BaseMessage[] => toLangChainMessages(conversation),
        run: async (input) =>
          (await compactLangChainMessages(input as BaseMessage[], options)).messages,
        fullResults: full,
      };
    }
    case "anthropic":
      return throughHelper(workload, toAnthropicMessages(conversation), compactAnthropicMessages);
    case "openai":
      return throughHelper(workload, toResponsesInput(conversation), compactResponsesInput);
    case "gemini":
      return throughHelper(workload, toGeminiContents(conversation), compactGeminiContents);
    case "chat-completions":
      return throughHelper(workload, toChatMessages(conversation), compactChatMessages);
  }
}

/** The workload of one size (untimed): part 3's conversation in every format. */
export const statelessWorkload = buildPeerWorkload;
