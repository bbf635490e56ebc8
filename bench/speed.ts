import v8 from "node:v8";
import vm from "node:vm";
import { toModelMessages } from "../src/ai-sdk/index.js";
import { toAnthropicMessages } from "../src/anthropic/index.js";
import { toChatMessages } from "../src/chat-completions/index.js";
import { toGeminiContents } from "../src/gemini/index.js";
import {
  AgentSession,
  type Compactor,
  estimateTokens,
  LLMCompactor,
  type Message,
  ThresholdCompactor,
} from "../src/index.js";
import { compactLangChainMessages, toLangChainMessages } from "../src/langchain/index.js";
import { toResponsesInput } from "../src/openai/index.js";
import { ConversationBuilder, MockLlmClient } from "../src/testing/index.js";

/** A timing: the median of `samples` runs, in milliseconds. */
export interface Timing {
  medianMs: number;
  samples: number;
}

/** What the speed part measured for one conversation size. */
export interface SpeedRow {
  messages: number;
  /** `messages.map(m => ({ ...m, content: [...m.content] }))`: the floor to compare against. */
  floor: Timing;
  /** `compact` per compactor, on an uncompacted conversation. */
  compact: Record<string, Timing>;
  /** `maybeCompact()` under the threshold (nothing to do). */
  maybeCompactUnder: Timing;
  /** `maybeCompact()` over the threshold, in steady state: one more turn to compact each time. */
  maybeCompactOver: Timing;
  /**
   * A step of a session's loop, per provider: one turn appended, then the session's messages
   * converted for the request (`toAnthropicMessages(session.messages)`, …). Absent in older results.
   */
  step?: Record<string, Timing>;
  /** Heap bytes per message: the conversation itself, and what a session holding it adds. */
  bytesPerMessage: { conversation: number; session: number } | undefined;
}

/** How the speed part runs. */
export interface SpeedOptions {
  sizes: readonly number[];
  /** Timed runs per size (more for small sizes). */
  samples: (messages: number) => number;
  /** Compactors whose `compact` is timed, by name. */
  compactors?: Record<string, Compactor>;
}

const TOOL_CALLS_PER_TURN = 4;
export const MESSAGES_PER_TURN = 2 + 2 * TOOL_CALLS_PER_TURN;

function exposeGc(): (() => void) | undefined {
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** A forced full GC, when the flag could be set (undefined otherwise). */
export const gc = exposeGc();

/**
 * A conversation of `count` messages: turns of a user request, four tool calls with
 * ~1 KB results (each with a compact summary) and a final answer.
 */
export function buildConversation(count: number, startTurn = 0): Message[] {
  const builder = new ConversationBuilder({ idPrefix: `m${startTurn}` });
  const turns = Math.ceil(count / MESSAGES_PER_TURN);
  for (let turn = 0; turn < turns; turn += 1) {
    const number = startTurn + turn;
    builder.inTurn({ owner: "u", number: number + 1 });
    builder.message({
      role: "user",
      id: `m${startTurn}-u${number}`,
      sessionId: "session-test",
      turnId: { owner: "u", number: number + 1 },
      createdAt: new Date(Date.UTC(2026, 0, 1) + number * 1000),
      content: [{ type: "text", text: `Request ${number}: look at the ${number % 7} module.` }],
    });
    for (let call = 0; call < TOOL_CALLS_PER_TURN; call += 1) {
      const path = `src/module-${number % 7}/file-${call}.ts`;
      builder.toolCall({
        id: `toolu_${number}_${call}`,
        name: "read_file",
        input: { path },
        result: `// ${path}\n${"export const value = 1;\n".repeat(40)}`,
        compactSummary: `read_file ${path}: 41 lines`,
      });
    }
    builder.assistant(`Turn ${number} done.`);
  }
  return builder.build().slice(0, count);
}

const WARM_UP_RUNS = 10;

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Times `run` `samples` times after ten warm-up runs (so the JIT has compiled it), with a GC before each run when
 * available (`collect: false` skips it: a forced GC slows the calls right after it).
 */
export async function time(
  samples: number,
  run: () => unknown,
  prepare: () => unknown = () => undefined,
  collect = true,
): Promise<Timing> {
  const durations: number[] = [];
  for (let index = 0; index < samples + WARM_UP_RUNS; index += 1) {
    await prepare();
    if (collect) gc?.();
    const start = performance.now();
    await run();
    const elapsed = performance.now() - start;
    if (index >= WARM_UP_RUNS) durations.push(elapsed);
  }
  return { medianMs: median(durations), samples };
}

/** Times a sub-microsecond call by batching: the median of batches, divided by the batch size. */
async function timeBatched(samples: number, batch: number, run: () => unknown): Promise<Timing> {
  const timing = await time(
    samples,
    async () => {
      for (let index = 0; index < batch; index += 1) await run();
    },
    undefined,
    false,
  );
  return { medianMs: timing.medianMs / batch, samples: samples * batch };
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

function defaultCompactors(): Record<string, Compactor> {
  return {
    summarize: new ThresholdCompactor({ toolCompaction: "summarize" }),
    redact: new ThresholdCompactor({ toolCompaction: "redact" }),
    "toolUses 10": new ThresholdCompactor({ keepRecentToolUses: 10 }),
  };
}

/** What a session's loop converts its messages with on each step, by provider. */
export const STEP_CONVERSIONS: Record<string, (messages: readonly Message[]) => unknown> = {
  Anthropic: toAnthropicMessages,
  Responses: toResponsesInput,
  Gemini: toGeminiContents,
  "Chat Completions": toChatMessages,
  "AI SDK": toModelMessages,
};

function appendAll(session: AgentSession, conversation: readonly Message[]): void {
  // append validates every message; in chunks, to keep argument lists short.
  for (let index = 0; index < conversation.length; index += 1000) {
    session.append(...conversation.slice(index, index + 1000));
  }
}

/** Runs the speed part for each size. */
export async function measureSpeed(options: SpeedOptions): Promise<SpeedRow[]> {
  // Warm up what is built once per process (schemas, compiled code), so it is not counted as memory.
  appendAll(new AgentSession({ contextLimit: 1000 }), buildConversation(100));
  const compactors = options.compactors ?? defaultCompactors();
  const rows: SpeedRow[] = [];
  for (const size of options.sizes) {
    const samples = options.samples(size);
    const before = heapUsed();
    const conversation = buildConversation(size);
    const afterConversation = heapUsed();
    const limit = 1_000_000_000;
    const session = new AgentSession({
      contextLimit: limit,
      compactor: new ThresholdCompactor({ toolCompaction: "summarize" }),
    });
    appendAll(session, conversation);
    const afterSession = heapUsed();

    const floor = await time(samples, () =>
      conversation.map((message) => ({ ...message, content: [...message.content] })),
    );
    const compact: Record<string, Timing> = {};
    for (const [name, compactor] of Object.entries(compactors)) {
      compact[name] = await time(samples, () => compactor.compact(conversation, new Map()));
    }
    // A frozen array (the session's `messages`, an Immer state), which V8 reads more slowly.
    const frozen = Object.freeze([...conversation]);
    const redact = new ThresholdCompactor({ toolCompaction: "redact" });
    compact["redact (frozen array)"] = await time(samples, () => redact.compact(frozen, new Map()));
    const summariser = new LLMCompactor(new MockLlmClient({ defaultReply: "Summary." }));
    compact["LLM (mock)"] = await time(samples, () =>
      summariser.compactAsync(conversation, new Map()),
    );
    // Redaction as a LangChain user calls it: BaseMessage[] converted in, compacted as the
    // session does (a window the conversation is just over the threshold of), converted back.
    const langchain = toLangChainMessages(conversation);
    const overWindow = {
      contextLimit: Math.ceil(estimateTokens(conversation) / 0.8),
      compactor: redact,
      maxBlockShare: 1,
      trimOnOverflow: false,
    };
    compact["redact (LangChain in/out)"] = await time(samples, () =>
      compactLangChainMessages(langchain, overWindow),
    );

    const maybeCompactUnder = await timeBatched(Math.min(samples, 21), 1000, () =>
      session.maybeCompact(),
    );
    // Over the threshold, in steady state: each run has one newly old turn to compact.
    session.recordUsage({ inputTokens: limit * 0.9 });
    await session.maybeCompact();
    let nextTurn = size;
    const maybeCompactOver = await time(
      samples,
      () => session.maybeCompact(),
      () => {
        session.append(...buildConversation(MESSAGES_PER_TURN, nextTurn));
        nextTurn += 1;
        session.recordUsage({ inputTokens: limit * 0.9 });
      },
    );

    // A step of the README's loop: a turn appended, the session's messages converted.
    const step: Record<string, Timing> = {};
    for (const [name, convert] of Object.entries(STEP_CONVERSIONS)) {
      step[name] = await time(
        samples,
        () => convert(session.messages),
        () => {
          session.append(...buildConversation(MESSAGES_PER_TURN, nextTurn));
          nextTurn += 1;
        },
      );
    }

    rows.push({
      messages: size,
      floor,
      compact,
      maybeCompactUnder,
      maybeCompactOver,
      step,
      bytesPerMessage: gc
        ? {
            conversation: Math.round((afterConversation - before) / size),
            session: Math.round((afterSession - afterConversation) / size),
          }
        : undefined,
    });
  }
  return rows;
}
