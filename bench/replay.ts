import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { roughTokens } from "../examples/support/messages-api-server.js";
import { checkThinkingPrefix, signReplyContent } from "../examples/support/thinking-rules.js";
import { appendAnthropicResponse, toAnthropicMessages } from "../src/anthropic/index.js";
import {
  AgentSession,
  type AgentSessionOptions,
  type CompactionEvent,
  HybridCompactor,
  LLMCompactor,
  type Message,
  ThresholdCompactor,
  validateConversation,
} from "../src/index.js";
import { benchClock } from "./dollars-billing.js";
import { createSummariser } from "./summariser.js";

/**
 * Replays real agent runs (Anthropic-Messages-shaped JSON, as in `../shared/realdata`) through
 * the library: before each assistant reply the session compacts (`maybeCompact`), the request
 * is built from `toAnthropicMessages(session.messages)` as the README's loop builds it, and is
 * checked as the API would check it: valid structure, inside the window, and the
 * preserved-thinking prefix check (each recorded reply's thinking is signed against the
 * request that produced it, as the model would sign it). Then the recorded reply and the
 * recorded tool results are appended, so every strategy sees the same run.
 */

/** One recorded run. */
export interface RecordedRun {
  system?: string;
  messages: { role: "user" | "assistant"; content: string | Record<string, unknown>[] }[];
}

/** Reads a recorded run (`*.json`). */
export function readRun(file: string): RecordedRun {
  return JSON.parse(readFileSync(file, "utf8")) as RecordedRun;
}

/** A strategy replayed: how the session is configured. */
export interface ReplayStrategy {
  name: string;
  options: () => Partial<AgentSessionOptions>;
}

/** The strategies the replay compares, `none` first (the baseline). */
export const REPLAY_STRATEGIES: readonly ReplayStrategy[] = [
  { name: "none", options: () => ({ compactor: false, trimOnOverflow: false }) },
  { name: "default", options: () => ({}) },
  {
    name: "threshold-redact",
    options: () => ({ compactor: new ThresholdCompactor({ toolCompaction: "redact" }) }),
  },
  {
    name: "hybrid",
    options: () => ({ compactor: new HybridCompactor({ client: createSummariser().client }) }),
  },
  {
    name: "llm",
    options: () => ({
      llmCompactor: new LLMCompactor(createSummariser().client, {
        keepRecentTurns: 1,
        targetUtilization: 0.5,
      }),
    }),
  },
];

/** What one run through one strategy did. */
export interface ReplayResult {
  file: string;
  strategy: string;
  /** Requests sent: one per recorded assistant reply. */
  requests: number;
  /** Input tokens of every request, summed (what a provider bills, before caching). */
  billedInputTokens: number;
  /** Requests above the window (the API would refuse them). */
  overWindow: number;
  /** Requests with a structural problem the API refuses (`validateConversation`). */
  invalid: number;
  /** Requests with a thinking block that fails the prefix check (a 400 by default). */
  prefixFailures: number;
  /** Thinking blocks the session removed to keep the prefix valid. */
  thinkingDropped: number;
  /** Tokens written to the prompt cache anew by the request after each compaction. */
  compactionCacheWrites: number;
  /** Compactions that changed the conversation, trims included. */
  compactions: number;
  /** The largest request, in tokens. */
  peakTokens: number;
}

/** A recorded message's content as blocks (a string is one text block). */
export function asBlocks(
  content: RecordedRun["messages"][number]["content"],
): Record<string, unknown>[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * Walks a recorded run through a session: appends each recorded user message (a new turn unless
 * it carries tool results, which continue the turn's tool loop), and before each recorded
 * assistant reply runs `maybeCompact` and yields the reply's blocks, for the caller to build the
 * request and append the reply.
 */
export async function* recordedReplies(
  session: AgentSession,
  run: RecordedRun,
  clock: () => Date,
): AsyncGenerator<Record<string, unknown>[]> {
  let turn = 0;
  let ids = 0;
  for (const recorded of run.messages) {
    const content = asBlocks(recorded.content);
    if (recorded.role === "assistant") {
      await session.maybeCompact();
      yield content;
      continue;
    }
    if (!content.some((block) => block["type"] === "tool_result")) turn += 1;
    ids += 1;
    session.append({
      role: "user",
      id: `replay-${ids}`,
      sessionId: session.sessionId,
      turnId: { owner: "u", number: Math.max(turn, 1) },
      createdAt: clock(),
      content: toOurs(content),
    } as Message);
  }
}

/** Tokens of the messages two requests share at their start: what the prompt cache still holds. */
function sharedPrefixTokens(previous: readonly unknown[], current: readonly unknown[]): number {
  let tokens = 0;
  for (let index = 0; index < Math.min(previous.length, current.length); index += 1) {
    const text = JSON.stringify(current[index]);
    if (JSON.stringify(previous[index]) !== text) break;
    tokens += roughTokens(current[index]);
  }
  return tokens;
}

/** Replays one recorded run through one strategy with a window of `contextLimit` tokens. */
export async function replayRun(
  file: string,
  strategy: ReplayStrategy,
  contextLimit: number,
): Promise<ReplayResult> {
  const run = readRun(file);
  const system = run.system ?? "";
  const clock = benchClock();
  let changed = false;
  const result: ReplayResult = {
    file: basename(file),
    strategy: strategy.name,
    requests: 0,
    billedInputTokens: 0,
    overWindow: 0,
    invalid: 0,
    prefixFailures: 0,
    thinkingDropped: 0,
    compactionCacheWrites: 0,
    compactions: 0,
    peakTokens: 0,
  };
  const onEvent = (event: CompactionEvent) => {
    if (event.type === "compaction_end") {
      changed = true;
      result.compactions += 1;
      result.thinkingDropped += event.boundary.thinkingBlocksDropped;
    } else if (event.type === "context_trimmed") {
      changed = true;
      result.compactions += 1;
      result.thinkingDropped += event.thinkingBlocksDropped;
    }
  };
  const session = new AgentSession({
    contextLimit,
    sessionId: `replay-${strategy.name}`,
    clock,
    onEvent,
    ...strategy.options(),
  });
  let previous: unknown[] = [];
  for await (const content of recordedReplies(session, run, clock)) {
    const messages = toAnthropicMessages(session.messages);
    const body = { system, tools: [], thinking: { type: "adaptive" }, messages };
    const tokens = roughTokens({ system, messages });
    result.requests += 1;
    result.billedInputTokens += tokens;
    result.peakTokens = Math.max(result.peakTokens, tokens);
    if (tokens > contextLimit) result.overWindow += 1;
    if (validateConversation(session.messages).length > 0) result.invalid += 1;
    if (checkThinkingPrefix(body).some((failure) => failure.reason !== "model_binding_mismatch"))
      result.prefixFailures += 1;
    if (changed) result.compactionCacheWrites += tokens - sharedPrefixTokens(previous, messages);
    changed = false;
    previous = messages;
    // The recorded reply, its thinking signed against this request as the model would sign it.
    const reply = signReplyContent(body, content.map(unsigned));
    appendAnthropicResponse(session, {
      content: reply as never,
      usage: { input_tokens: tokens, output_tokens: roughTokens(reply) },
    });
  }
  return result;
}

/** Thinking as the model writes it: the recorded (sanitised) signature is replaced on replay. */
export function unsigned(block: Record<string, unknown>): Record<string, unknown> {
  if (block["type"] === "thinking") return { type: "thinking", thinking: block["thinking"] ?? "" };
  if (block["type"] === "redacted_thinking") return { type: "redacted_thinking", hidden: "" };
  return block;
}

/** Our blocks from the recorded wire blocks (user side: text, images, tool results). */
export function toOurs(content: Record<string, unknown>[]) {
  return content.map((block) => {
    if (block["type"] === "tool_result") {
      const raw = block["content"];
      return {
        type: "tool_result" as const,
        toolUseId: String(block["tool_use_id"]),
        content: typeof raw === "string" ? raw : JSON.stringify(raw ?? ""),
        isError: block["is_error"] === true,
      };
    }
    if (block["type"] === "text")
      return { type: "text" as const, text: String(block["text"]) || " " };
    return { type: "opaque" as const, block: block as never };
  });
}

/** The `*.json` runs of a folder, sorted. */
export function runsIn(directory: string): string[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => join(directory, name));
}

/** Replays every run of `directory` through every strategy. */
export async function replayAll(
  directory: string,
  contextLimit: number,
  strategies: readonly ReplayStrategy[] = REPLAY_STRATEGIES,
): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const file of runsIn(directory)) {
    for (const strategy of strategies) results.push(await replayRun(file, strategy, contextLimit));
  }
  return results;
}

const REPLAY_HEADERS = [
  "run",
  "strategy",
  "requests",
  "billed input",
  "vs none",
  "over window",
  "invalid",
  "prefix failures",
  "thinking dropped",
  "compactions",
  "cache write / compaction",
] as const;

/** Table rows: one per run and strategy, then the totals per strategy. */
export function replayRows(results: readonly ReplayResult[]): string[][] {
  const row = (
    file: string,
    strategy: string,
    list: readonly ReplayResult[],
    none: readonly ReplayResult[],
  ) => {
    const sum = (key: keyof ReplayResult) =>
      list.reduce((total, result) => total + (result[key] as number), 0);
    const billed = sum("billedInputTokens");
    const baseline = none.reduce((total, result) => total + result.billedInputTokens, 0);
    const compactions = sum("compactions");
    return [
      file,
      strategy,
      String(sum("requests")),
      String(billed),
      strategy === "none" || baseline === 0
        ? "-"
        : `${((billed / baseline - 1) * 100).toFixed(1)}%`,
      String(sum("overWindow")),
      String(sum("invalid")),
      String(sum("prefixFailures")),
      String(sum("thinkingDropped")),
      String(compactions),
      compactions === 0 ? "-" : String(Math.round(sum("compactionCacheWrites") / compactions)),
    ];
  };
  const strategies = [...new Set(results.map((result) => result.strategy))];
  const files = [...new Set(results.map((result) => result.file))];
  const none = (file?: string) =>
    results.filter(
      (result) => result.strategy === "none" && (file === undefined || result.file === file),
    );
  return [
    ...files.flatMap((file) =>
      strategies.map((strategy) =>
        row(
          file,
          strategy,
          results.filter((r) => r.file === file && r.strategy === strategy),
          none(file),
        ),
      ),
    ),
    ...strategies.map((strategy) =>
      row(
        "total",
        strategy,
        results.filter((r) => r.strategy === strategy),
        none(),
      ),
    ),
  ];
}

/** The headers of {@link replayRows}. */
export function replayHeaders(): string[] {
  return [...REPLAY_HEADERS];
}
