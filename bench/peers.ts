/**
 * Part 3 of `npm run bench`: ThresholdCompactor side by side with the peers that do the same
 * job in other libraries, in one process, on the same conversation:
 *
 * - ours: `new ThresholdCompactor({ toolCompaction: "redact" }).compact(conversation, new Map())`
 *   replaces the output of every tool result older than the last 3 turns by a short notice.
 * - the AI SDK's `pruneMessages` (`ai@6`) with `toolCalls: "before-last-N-messages"`, N the
 *   messages of the last 3 turns: removes the tool calls and results older than that.
 * - LangChain's `trimMessages` (`@langchain/core`) with a chars/4 token counter and `maxTokens`
 *   the size of the last 3 turns: drops every message older than the last 3 turns.
 * - ours as a LangChain user calls it, on the same `BaseMessage[]`: `compactLangChainMessages`
 *   from `agent-compaction/langchain` (converted in, compacted as the session does, converted back).
 *
 * The conversation is built once per size with the repo's `ConversationBuilder` and converted
 * to `ModelMessage[]` and `BaseMessage[]` outside the timed region. `npm run bench` runs each
 * size in a fresh process (`bench/run.ts`); bench/README.md says how the numbers are taken.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  ToolMessage,
  trimMessages,
} from "@langchain/core/messages";
import { type ModelMessage, pruneMessages } from "ai";
import {
  type ContentBlock,
  estimateTokens,
  type JsonObject,
  type Message,
  REDACTION_NOTICE,
  ThresholdCompactor,
} from "../src/index.js";
import { compactLangChainMessages, fromLangChainMessages } from "../src/langchain/index.js";
import { ConversationBuilder } from "../src/testing/index.js";
import type { FloorRow } from "./floors.js";
import { formatMs } from "./format.js";
import { createRandom } from "./random.js";
import { gc, median, type Timing } from "./speed.js";

/** Turns at the end that every contender keeps whole (ThresholdCompactor's default). */
export const KEEP_RECENT_TURNS = 3;

const SEED = 20_260_109;
const MAX_TOOL_CALLS_PER_TURN = 6;

/** A few KB of realistic tool output: source lines, grep hits, test logs. */
const OUTPUT_BODIES: readonly string[] = Array.from({ length: 16 }, (_, index) => {
  const line =
    index % 3 === 0
      ? `export function handler${index}(request: Request): Response { return respond(request, ${index}); }\n`
      : index % 3 === 1
        ? `src/module-${index}/service.ts:${40 + index}:    const value = await client.fetch(id, { retries: ${index} });\n`
        : `  ✓ module ${index} › resolves the configuration and keeps the cache warm (${index * 3} ms)\n`;
  // 1 to 4 KB.
  return line.repeat(Math.ceil((1000 + (index * 3000) / 15) / line.length));
});

const TOOLS = ["read_file", "grep", "run_tests", "list_dir"] as const;

function toolInput(tool: (typeof TOOLS)[number], turn: number, call: number): JsonObject {
  const path = `src/module-${turn % 23}/file-${call}.ts`;
  switch (tool) {
    case "read_file":
      return { path };
    case "grep":
      return { pattern: `handler${turn % 17}`, path: `src/module-${turn % 23}` };
    case "run_tests":
      return { command: `npm test -- module-${turn % 23}`, timeoutMs: 120_000 };
    case "list_dir":
      return { path: `src/module-${turn % 23}`, recursive: call % 2 === 0 };
  }
}

/**
 * A conversation of exactly `count` messages (an even number ≥ 2), built with
 * `ConversationBuilder`: turns of a user request, 1 to 6 tool calls (each an assistant message
 * with a sentence of text and a `tool_use`, then the user's `tool_result` of 1–4 KB with a
 * compact summary) and a final answer. Seeded: the same conversation on every run.
 */
export function buildPeerConversation(count: number): Message[] {
  if (count < 2 || count % 2 !== 0) throw new Error("count must be an even number ≥ 2");
  const random = createRandom(SEED);
  const builder = new ConversationBuilder({ idPrefix: "peer" });
  let built = 0;
  for (let turn = 0; built < count; turn += 1) {
    const remaining = count - built;
    let calls = random.int(1, MAX_TOOL_CALLS_PER_TURN);
    if (2 + 2 * calls > remaining) calls = (remaining - 2) / 2;
    builder.user(
      `Request ${turn}: in src/module-${turn % 23}, find why handler${turn % 17} returns a stale value and fix it; keep the public API unchanged.`,
    );
    for (let call = 0; call < calls; call += 1) {
      const tool = random.pick(TOOLS);
      const input = toolInput(tool, turn, call);
      const body = OUTPUT_BODIES[random.int(0, OUTPUT_BODIES.length - 1)]!;
      builder.toolCall(
        {
          name: tool,
          input,
          // A unique first line in front of a shared body: distinct results, modest memory.
          result: `${tool} ${JSON.stringify(input)} (turn ${turn}, call ${call})\n${body}`,
          compactSummary: `${tool} ${Object.values(input)[0]}: ${body.length} characters`,
        },
        { text: `Step ${call + 1}: running ${tool} to check module ${turn % 23}.` },
      );
    }
    builder.assistant(
      `Turn ${turn} done: handler${turn % 17} read a cached value after the refresh; it now awaits the refresh first. Tests pass.`,
    );
    built += 2 + 2 * calls;
  }
  return builder.build();
}

function textOf(blocks: readonly ContentBlock[]): string {
  let text = "";
  for (const block of blocks) if (block.type === "text") text += block.text;
  return text;
}

function resultText(content: string | readonly ContentBlock[]): string {
  return typeof content === "string" ? content : textOf(content as readonly ContentBlock[]);
}

/** The same conversation as AI SDK `ModelMessage`s: tool results become `tool` messages. */
export function toModelMessages(conversation: readonly Message[]): ModelMessage[] {
  const toolNames = new Map<string, string>();
  const out: ModelMessage[] = [];
  for (const message of conversation) {
    if (message.role === "assistant") {
      const content: Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string> = [];
      for (const block of message.content) {
        if (block.type === "text") content.push({ type: "text", text: block.text });
        else if (block.type === "tool_use") {
          toolNames.set(block.id, block.name);
          content.push({
            type: "tool-call",
            toolCallId: block.id,
            toolName: block.name,
            input: block.input,
          });
        }
      }
      out.push({ role: "assistant", content });
      continue;
    }
    const results = message.content.filter((block) => block.type === "tool_result");
    if (results.length > 0) {
      out.push({
        role: "tool",
        content: results.map((block) => ({
          type: "tool-result" as const,
          toolCallId: block.toolUseId,
          toolName: toolNames.get(block.toolUseId) ?? "unknown",
          output: block.isError
            ? { type: "error-text" as const, value: resultText(block.content) }
            : { type: "text" as const, value: resultText(block.content) },
        })),
      });
    }
    const text = textOf(message.content);
    if (text !== "") out.push({ role: "user", content: [{ type: "text", text }] });
  }
  return out;
}

/** The same conversation as LangChain messages: tool results become `ToolMessage`s. */
export function toLangChainMessages(conversation: readonly Message[]): BaseMessage[] {
  const toolNames = new Map<string, string>();
  const out: BaseMessage[] = [];
  for (const message of conversation) {
    if (message.role === "assistant") {
      const toolCalls = [];
      for (const block of message.content) {
        if (block.type !== "tool_use") continue;
        toolNames.set(block.id, block.name);
        toolCalls.push({
          id: block.id,
          name: block.name,
          args: block.input,
          type: "tool_call" as const,
        });
      }
      out.push(new AIMessage({ content: textOf(message.content), tool_calls: toolCalls }));
      continue;
    }
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      out.push(
        new ToolMessage({
          content: resultText(block.content),
          tool_call_id: block.toolUseId,
          name: toolNames.get(block.toolUseId) ?? "unknown",
          status: block.isError ? "error" : "success",
        }),
      );
    }
    const text = textOf(message.content);
    if (text !== "") out.push(new HumanMessage(text));
  }
  return out;
}

/**
 * The token counter handed to `trimMessages`: chars / 4 of the content, plus the tool calls'
 * names and a flat 4 tokens of framing per message, like our own estimate (which also
 * serialises tool inputs, once per message object). Only string lengths are read: as cheap
 * as a counter gets, so what is timed is `trimMessages` itself.
 */
export function countLangChainTokens(messages: readonly BaseMessage[]): number {
  let chars = 0;
  let framing = 0;
  for (const message of messages) {
    framing += 4;
    const content = message.content;
    if (typeof content === "string") chars += content.length;
    else
      for (const part of content)
        if (typeof part === "object" && part.type === "text" && typeof part.text === "string")
          chars += part.text.length;
    const calls = (message as AIMessage).tool_calls;
    if (calls !== undefined) for (const call of calls) chars += call.name.length + 32;
  }
  return framing + Math.ceil(chars / 4);
}

/** Index of the first message of the last `turns` turns: the `turns`-th last message `isRequest` accepts. */
function startOfLastTurns<T>(messages: readonly T[], turns: number, isRequest: (m: T) => boolean) {
  let seen = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (isRequest(messages[index]!)) seen += 1;
    if (seen === turns) return index;
  }
  return 0;
}

/** One size's conversation in the three representations, and the settings of the equivalent job. */
export interface PeerWorkload {
  conversation: Message[];
  modelMessages: ModelMessage[];
  langchainMessages: BaseMessage[];
  turns: number;
  toolResults: number;
  /** `pruneMessages`' N: the `ModelMessage`s of the last 3 turns. */
  pruneKeepLast: number;
  /** `trimMessages`' `maxTokens`: the size of the last 3 turns by {@link countLangChainTokens}. */
  trimMaxTokens: number;
}

/** Builds the workload of one size (untimed). */
export function buildPeerWorkload(count: number): PeerWorkload {
  const conversation = buildPeerConversation(count);
  const modelMessages = toModelMessages(conversation);
  const langchainMessages = toLangChainMessages(conversation);
  const pruneStart = startOfLastTurns(
    modelMessages,
    KEEP_RECENT_TURNS,
    (message) => message.role === "user",
  );
  const trimStart = startOfLastTurns(langchainMessages, KEEP_RECENT_TURNS, (message) =>
    HumanMessage.isInstance(message),
  );
  return {
    conversation,
    modelMessages,
    langchainMessages,
    turns: conversation.filter(
      (message) => textOf(message.content) !== "" && message.role === "user",
    ).length,
    toolResults: modelMessages.filter((message) => message.role === "tool").length,
    pruneKeepLast: modelMessages.length - pruneStart,
    trimMaxTokens: countLangChainTokens(langchainMessages.slice(trimStart)),
  };
}

/** What one contender left: messages, and tool results still carrying their full output. */
export interface PeerOutcome {
  messages: number;
  fullToolResults: number;
}

/** A timing of the peer part: the median, and the fastest run (the least disturbed one). */
export interface PeerTiming extends Timing {
  minMs: number;
}

/** What the peer comparison measured for one conversation size. */
export interface PeerRow {
  messages: number;
  turns: number;
  toolResults: number;
  /**
   * `compact` on the same array each run, as a loop that appends to its conversation and
   * compacts it: validated and estimated once, then one comparison per message.
   */
  ours: PeerTiming;
  /** `compact` on a new array of the same messages each run: one cache lookup per message. */
  oursNewArray: PeerTiming;
  /** `compact` on a fresh copy each run (first sight: every message validated and estimated). */
  oursFresh: PeerTiming;
  pruneMessages: PeerTiming;
  /** Undefined when skipped: `trimMessages` is quadratic in the messages it drops. */
  trimMessages: PeerTiming | undefined;
  /** Why `trimMessages` was skipped, with its estimated time. */
  trimSkipped?: string;
  /**
   * Ours on LangChain's messages, as a LangChain user calls it: `compactLangChainMessages`
   * (converted in, compacted as the session does, converted back). Absent in older results.
   */
  oursLangChain?: PeerTiming;
  /**
   * ours/pruneMessages (medians) in each fresh process this size ran in, ascending; the row is
   * the one of the median process. Absent when the size ran in one process.
   */
  processRatios?: number[];
  /** What each left, checked outside the timed region: they do the same job. */
  outcome: {
    ours: PeerOutcome;
    pruneMessages: PeerOutcome;
    trimMessages: PeerOutcome | undefined;
    oursLangChain?: PeerOutcome;
  };
  settings: { pruneToolCalls: string; trimMaxTokens: number };
}

/** The peer part as saved in `bench/results.json` under `peers`. */
export interface PeerResults {
  /** Ours beside the floors, per size (`bench/floors.ts`); absent in older results. */
  floors?: FloorRow[];
  environment: { node: string; platform: string; cpus: number; cpuModel: string };
  /** `os.loadavg()` before and after: other processes on the machine make timings noisy. */
  loadAverage: { before: number[]; after: number[] };
  /** The versions timed. */
  versions: Record<string, string>;
  rows: PeerRow[];
}

/** The installed versions of this package's peers in the comparison. */
export function peerVersions(): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const name of ["ai", "@langchain/core"]) {
    try {
      const path = fileURLToPath(new URL(`../node_modules/${name}/package.json`, import.meta.url));
      versions[name] = (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
    } catch {
      versions[name] = "unknown";
    }
  }
  return versions;
}

/** How the peer part runs. */
export interface PeerOptions {
  sizes: readonly number[];
  /**
   * trimMessages' time at a smaller size measured before (in another process), to estimate
   * its time at the first of `sizes`.
   */
  previousTrim?: { messages: number; trimMs: number } | undefined;
  /** Timed runs per size. */
  samples: (messages: number) => number;
  /** Untimed runs first, per size (the JIT compiles the hot paths). */
  warmUps: (messages: number) => number;
  /**
   * `trimMessages` runs at a size only when one run, extrapolated quadratically from the size
   * before, is estimated under this many milliseconds; otherwise the row says it was skipped
   * and why. A run estimated over 5 s is timed once. @default 60_000
   */
  trimBudgetMs?: number;
  /**
   * Force a GC before each timed call. Off by default: a forced full GC slows the call right
   * after it by up to 10x, unevenly between contenders (ThresholdCompactor's steady-state call
   * suffers most), which measures the collector, not the code. @default false
   */
  collect?: boolean;
  /**
   * Warm-up lasts at least this long as well as its round count: on a busy machine the
   * optimising compiler, which runs on another thread, can lag many calls behind. @default 1000
   */
  minWarmUpMs?: number;
  progress?: (text: string) => void;
}

/** One of the functions {@link timeInterleaved} times. */
export interface Contender {
  name: string;
  run: () => unknown;
  /** Untimed, before each run (a fresh copy of the input). */
  prepare?: () => void;
}

function summarise(values: readonly number[]): PeerTiming {
  return { medianMs: median(values), minMs: Math.min(...values), samples: values.length };
}

/** Default of {@link PeerOptions.minWarmUpMs}. */
const MIN_WARM_UP_MS = 1000;

/**
 * Runs every contender once per round, in order on even rounds and in reverse on odd ones (so
 * with two, each runs after the other as often as after itself: neither always inherits the
 * other's garbage). The first rounds warm up (at least `warmUps` of them, for at least
 * `minWarmUpMs`); the next `samples` are recorded. Returns each one's median.
 */
export async function timeInterleaved(
  contenders: readonly Contender[],
  warmUps: number,
  samples: number,
  { collect, minWarmUpMs }: { collect: boolean; minWarmUpMs: number },
): Promise<Record<string, PeerTiming>> {
  const durations = contenders.map(() => [] as number[]);
  const started = performance.now();
  let warmingUp = true;
  for (let round = 0, recorded = 0; recorded < samples; round += 1) {
    if (warmingUp && round >= warmUps && performance.now() - started >= minWarmUpMs)
      warmingUp = false;
    for (let step = 0; step < contenders.length; step += 1) {
      const index = round % 2 === 0 ? step : contenders.length - 1 - step;
      const contender = contenders[index]!;
      contender.prepare?.();
      if (collect) gc?.();
      const start = performance.now();
      await contender.run();
      const elapsed = performance.now() - start;
      if (!warmingUp) durations[index]!.push(elapsed);
    }
    if (!warmingUp) recorded += 1;
  }
  return Object.fromEntries(
    contenders.map((contender, index) => [contender.name, summarise(durations[index]!)]),
  );
}

/** New message and block objects with the same content: what the library has never seen. */
function freshCopy(conversation: readonly Message[]): Message[] {
  return conversation.map(
    (message) =>
      ({
        ...message,
        content: message.content.map((block) => ({ ...block })),
      }) as Message,
  );
}

function oursOutcome(messages: readonly Message[]): PeerOutcome {
  let fullToolResults = 0;
  for (const message of messages)
    for (const block of message.content)
      if (
        block.type === "tool_result" &&
        !(typeof block.content === "string" && block.content.startsWith(REDACTION_NOTICE))
      )
        fullToolResults += 1;
  return { messages: messages.length, fullToolResults };
}

function pruneOutcome(messages: readonly ModelMessage[]): PeerOutcome {
  let fullToolResults = 0;
  for (const message of messages)
    if (message.role === "tool")
      for (const part of message.content) if (part.type === "tool-result") fullToolResults += 1;
  return { messages: messages.length, fullToolResults };
}

function trimOutcome(messages: readonly BaseMessage[]): PeerOutcome {
  return {
    messages: messages.length,
    fullToolResults: messages.filter((message) => ToolMessage.isInstance(message)).length,
  };
}

/** Timed rounds per size in `npm run bench`. */
export const peerSamples = (messages: number): number =>
  messages >= 100_000 ? 15 : messages >= 10_000 ? 101 : 201;

/** Warm-up rounds per size in `npm run bench` (and at least a second of them). */
export const peerWarmUps = (messages: number): number =>
  messages >= 100_000 ? 3 : messages >= 10_000 ? 20 : 100;

/** At most this many timed runs of ours on fresh copies (each copy is made untimed). */
export const FRESH_SAMPLES = 31;

/** Default of {@link PeerOptions.trimBudgetMs}. */
export const DEFAULT_TRIM_BUDGET_MS = 10_000;

const SLOW_TRIM_MS = 50;
const VERY_SLOW_TRIM_MS = 5000;

/** What ours left of LangChain's messages: tool messages whose output was not masked. */
function langChainOutcome(messages: readonly BaseMessage[]): PeerOutcome {
  const full = messages.filter(
    (message) => ToolMessage.isInstance(message) && !message.text.startsWith(REDACTION_NOTICE),
  );
  return { messages: messages.length, fullToolResults: full.length };
}

/**
 * Ours as a LangChain user calls it, timed apart: `compactLangChainMessages` on the same
 * `BaseMessage[]` as trimMessages, with the same compactor (a window the conversation is just
 * over the compactor's threshold of; no text clamped, no last-resort trim).
 */
async function measureLangChain(
  workload: PeerWorkload,
  rounds: { warmUps: number; samples: number },
  timing: { collect: boolean; minWarmUpMs: number },
): Promise<{ timing: PeerTiming; outcome: PeerOutcome }> {
  const estimate = estimateTokens(fromLangChainMessages(workload.langchainMessages));
  const options = {
    contextLimit: Math.ceil(estimate / 0.8),
    compactor: new ThresholdCompactor({ toolCompaction: "redact" }),
    maxBlockShare: 1,
    trimOnOverflow: false,
  };
  const out = await compactLangChainMessages(workload.langchainMessages, options);
  gc?.();
  const timings = await timeInterleaved(
    [
      {
        name: "oursLangChain",
        run: () => compactLangChainMessages(workload.langchainMessages, options),
      },
    ],
    Math.min(rounds.warmUps, 10),
    Math.min(rounds.samples, FRESH_SAMPLES),
    timing,
  );
  return { timing: timings["oursLangChain"]!, outcome: langChainOutcome(out.messages) };
}

/** Runs the peer comparison for each size. */
export async function measurePeers(options: PeerOptions): Promise<PeerRow[]> {
  const trimBudgetMs = options.trimBudgetMs ?? DEFAULT_TRIM_BUDGET_MS;
  const timing = {
    collect: options.collect ?? false,
    minWarmUpMs: options.minWarmUpMs ?? MIN_WARM_UP_MS,
  };
  const rows: PeerRow[] = [];
  let previous = options.previousTrim;
  for (const size of options.sizes) {
    options.progress?.(` ${size}`);
    const workload = buildPeerWorkload(size);
    const compactor = new ThresholdCompactor({ toolCompaction: "redact" });
    // The option for "drop old tool output, keep the last 3 turns": `before-last-N-messages`,
    // N the messages of those turns (one turn is not a fixed number of messages). The others
    // do another job: `before-last-message` strips the tool calls of the current turn too,
    // `all` every one. No `tools` filter (every tool's output goes); `reasoning` stays `none`
    // (there is none) and `emptyMessages` its default `remove` (a `tool` message whose
    // results all went has nothing left to send). It removes the old calls with their
    // results, where ours keeps the calls and replaces the output by a notice.
    const toolCalls = `before-last-${workload.pruneKeepLast}-messages` as const;
    const trimOptions = {
      maxTokens: workload.trimMaxTokens,
      tokenCounter: countLangChainTokens,
      strategy: "last" as const,
      // The kept part starts on a user request, as LangChain's docs recommend for chat models.
      startOn: "human" as const,
    };

    // Untimed: what each one leaves (the first trimMessages run also sizes its timing plan).
    const oursOut = compactor.compact(workload.conversation, new Map()).conversation;
    const pruneOut = pruneMessages({ messages: workload.modelMessages, toolCalls });
    const ratio = previous === undefined ? 1 : size / previous.messages;
    const estimatedTrimMs = previous === undefined ? undefined : previous.trimMs * ratio * ratio;
    let trimOut: BaseMessage[] | undefined;
    let firstTrimMs = 0;
    let trimSkipped: string | undefined;
    if (estimatedTrimMs !== undefined && estimatedTrimMs > trimBudgetMs) {
      trimSkipped = `estimated ${Math.round(estimatedTrimMs / 1000)} s a run (quadratic), over the ${Math.round(trimBudgetMs / 1000)} s budget`;
    } else {
      const start = performance.now();
      trimOut = await trimMessages(workload.langchainMessages, trimOptions);
      firstTrimMs = performance.now() - start;
    }

    const warmUps = options.warmUps(size);
    const samples = options.samples(size);
    // Phase 1, the comparison the issue asks for: ours and pruneMessages interleaved.
    gc?.();
    const timings = await timeInterleaved(
      [
        { name: "ours", run: () => compactor.compact(workload.conversation, new Map()) },
        {
          name: "pruneMessages",
          run: () => pruneMessages({ messages: workload.modelMessages, toolCalls }),
        },
      ],
      warmUps,
      samples,
      timing,
    );
    // Phase 2, apart: trimMessages takes 100 to 100,000 times longer and leaves hundreds of
    // megabytes of garbage, whose collection would land on whichever call came next.
    let trimTiming: PeerTiming | undefined;
    if (trimOut !== undefined && firstTrimMs > VERY_SLOW_TRIM_MS) {
      // Too slow to repeat: the untimed run above is the one sample.
      trimTiming = summarise([firstTrimMs]);
    } else if (trimOut !== undefined) {
      gc?.();
      const slow = firstTrimMs > SLOW_TRIM_MS;
      trimTiming = (
        await timeInterleaved(
          [
            {
              name: "trimMessages",
              run: () => trimMessages(workload.langchainMessages, trimOptions),
            },
          ],
          // Runs of a second are their own warm-up: fewer of them.
          slow ? 1 : warmUps,
          slow ? 7 : Math.min(samples, 61),
          timing,
        )
      )["trimMessages"];
    }
    // Phase 3, apart: new arrays and fresh copies fill the library's caches (WeakMaps) with
    // entries that live until the next GC.
    gc?.();
    let array: Message[] = workload.conversation;
    const newArrayTimings = await timeInterleaved(
      [
        {
          name: "oursNewArray",
          prepare: () => {
            array = [...workload.conversation];
          },
          run: () => compactor.compact(array, new Map()),
        },
      ],
      warmUps,
      Math.min(samples, 61),
      timing,
    );
    gc?.();
    let fresh: Message[] = workload.conversation;
    const freshTimings = await timeInterleaved(
      [
        {
          name: "oursFresh",
          prepare: () => {
            fresh = freshCopy(workload.conversation);
          },
          run: () => compactor.compact(fresh, new Map()),
        },
      ],
      Math.min(warmUps, 10),
      Math.min(samples, FRESH_SAMPLES),
      timing,
    );
    const langchain = await measureLangChain(workload, { warmUps, samples }, timing);

    rows.push({
      messages: size,
      turns: workload.turns,
      toolResults: workload.toolResults,
      ours: timings["ours"]!,
      oursNewArray: newArrayTimings["oursNewArray"]!,
      oursFresh: freshTimings["oursFresh"]!,
      pruneMessages: timings["pruneMessages"]!,
      trimMessages: trimTiming,
      ...(trimSkipped === undefined ? {} : { trimSkipped }),
      oursLangChain: langchain.timing,
      outcome: {
        ours: oursOutcome(oursOut),
        pruneMessages: pruneOutcome(pruneOut),
        trimMessages: trimOut === undefined ? undefined : trimOutcome(trimOut),
        oursLangChain: langchain.outcome,
      },
      settings: { pruneToolCalls: toolCalls, trimMaxTokens: workload.trimMaxTokens },
    });
    if (trimTiming !== undefined) previous = { messages: size, trimMs: trimTiming.medianMs };
  }
  return rows;
}

function ratio(ours: number, peer: Timing | undefined): string {
  return peer === undefined
    ? "-"
    : `${(ours / peer.medianMs).toFixed(peer.medianMs > 100 * ours ? 4 : 2)}x`;
}

/** Headers of the peer table. */
export const PEER_HEADERS = [
  "messages",
  "ours",
  "pruneMessages",
  "trimMessages",
  "ours/prune",
  "ours/trim",
  "ours per 1k msgs",
  "ours (new array)",
  "new array/prune",
  "ours (fresh)",
  "fresh/prune",
  "fresh per 1k msgs",
  "ours (LangChain in/out)",
  "LangChain/trim",
] as const;

/** The peer table's rows: medians, their ratios, and ours per 1,000 messages (linearity). */
export function peerRows(rows: readonly PeerRow[]): string[][] {
  return rows.map((row) => [
    String(row.messages),
    formatMs(row.ours.medianMs),
    formatMs(row.pruneMessages.medianMs),
    row.trimMessages === undefined
      ? "skipped"
      : `${formatMs(row.trimMessages.medianMs)}${row.trimMessages.samples === 1 ? " (1 run)" : ""}`,
    ratio(row.ours.medianMs, row.pruneMessages),
    ratio(row.ours.medianMs, row.trimMessages),
    formatMs((row.ours.medianMs * 1000) / row.messages),
    formatMs(row.oursNewArray.medianMs),
    ratio(row.oursNewArray.medianMs, row.pruneMessages),
    formatMs(row.oursFresh.medianMs),
    ratio(row.oursFresh.medianMs, row.pruneMessages),
    formatMs((row.oursFresh.medianMs * 1000) / row.messages),
    row.oursLangChain === undefined ? "-" : formatMs(row.oursLangChain.medianMs),
    row.oursLangChain === undefined ? "-" : ratio(row.oursLangChain.medianMs, row.trimMessages),
  ]);
}

/** ours/pruneMessages of one row: the ratio of their medians. */
export function pruneRatio(row: PeerRow): number {
  return row.ours.medianMs / row.pruneMessages.medianMs;
}

/**
 * Of the same size's rows from separate processes, the one whose `ratio` is the median (the
 * lower middle one for an even count), with every process's ratio recorded.
 */
export function medianProcess<T extends { processRatios?: number[] }>(
  rows: readonly T[],
  ratio: (row: T) => number,
): T {
  const sorted = [...rows].sort((a, b) => ratio(a) - ratio(b));
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (middle === undefined) throw new Error("no rows to choose from");
  return sorted.length === 1 ? middle : { ...middle, processRatios: sorted.map(ratio) };
}

/** Of the same size's rows from separate processes, the one with the median ours/prune ratio. */
export function medianProcessRow(rows: readonly PeerRow[]): PeerRow {
  return medianProcess(rows, pruneRatio);
}

/** One line per size with more than one process: the ratio called `name` in each. */
export function ratioLines(
  rows: readonly { messages: number; processRatios?: number[] }[],
  name: string,
): string[] {
  return rows.flatMap((row) =>
    row.processRatios === undefined
      ? []
      : [
          `${row.messages} messages: ${name} ${row.processRatios.map((value) => `${value.toFixed(2)}x`).join(", ")} in ${row.processRatios.length} processes (the row is the median one)`,
        ],
  );
}

/** One line per size with more than one process: ours/pruneMessages in each. */
export function processRatioLines(rows: readonly PeerRow[]): string[] {
  return ratioLines(rows, "ours/prune");
}

/** One line per size: what each contender left (the same recent turns, the same full outputs). */
export function peerOutcomeLines(rows: readonly PeerRow[]): string[] {
  return rows.map((row) => {
    const { ours, pruneMessages: prune, trimMessages: trim } = row.outcome;
    const trimmed =
      trim === undefined
        ? `skipped (${row.trimSkipped ?? "not run"})`
        : `${trim.messages} messages, ${trim.fullToolResults} full outputs`;
    return (
      `${row.messages} messages (${row.turns} turns, ${row.toolResults} tool results): ` +
      `ours ${ours.messages} messages, ${ours.fullToolResults} full outputs · ` +
      `pruneMessages ${prune.messages}, ${prune.fullToolResults} · trimMessages ${trimmed}` +
      (row.outcome.oursLangChain === undefined
        ? ""
        : ` · ours on LangChain ${row.outcome.oursLangChain.messages}, ${row.outcome.oursLangChain.fullToolResults}`)
    );
  });
}
