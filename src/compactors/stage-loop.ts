import {
  type CompactAsyncOptions,
  type CompactionContext,
  type CompactionOutput,
  type Compactor,
  conversationChanged,
  isTrustedCompactor,
  runCompactor,
} from "../core/compactor.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";

/**
 * The rule of every run of stages, the session's and a preset's alike: each stage runs on what
 * the one before left, judged on the context that leaves (what the measure counts beside the
 * messages, the system prompt and tools, stays).
 */

/**
 * The context a stage is judged on once the stages before it left `working`: the overhead of
 * the run's first measure (`contextUsed` beyond the estimate of its messages) and the estimate
 * of `working`. The first measure itself while nothing changed.
 */
export function contextAfter(
  first: { contextUsed: number; estimate: number; conversation: readonly Message[] },
  working: readonly Message[],
  workingTokens?: number,
): number {
  if (working === first.conversation) return first.contextUsed;
  return (
    Math.max(0, first.contextUsed - first.estimate) + (workingTokens ?? estimateTokens(working))
  );
}

/**
 * The estimate of what a stage left, when the stage is one of ours: its `tokensAfter`, which
 * our compactors keep exact (each edit adjusts it); `undefined` for an app's compactor.
 */
export function trustedTokensAfter(
  compactor: Compactor,
  output: CompactionOutput,
): number | undefined {
  return isTrustedCompactor(compactor) ? output.result.tokensAfter : undefined;
}

/**
 * Whether a stage is due on `contextUsed`: in a manual run, or where no window is known, every
 * stage is; otherwise its own threshold says (`shouldCompact`).
 */
export function stageDue(
  compactor: Compactor,
  contextUsed: number,
  context: CompactionContext,
): boolean {
  const { contextLimit, trigger } = context;
  if (trigger === "manual" || contextLimit === undefined) return true;
  return compactor.shouldCompact(contextUsed, contextLimit);
}

/** How a run of stages runs one of them: as {@link runCompactor} does, by default. */
export type StageRunner = typeof runCompactor;

/** What a run of stages did. */
export interface StagesOutput {
  /** What the last stage left (the input itself when no stage changed it). */
  conversation: readonly Message[];
  /** Each stage that changed the conversation, with its output, in order. */
  changed: { compactor: Compactor; output: CompactionOutput }[];
  /** The last stage that was due, whether or not it changed anything. */
  ran?: Compactor;
  /** Why the last due stage changed nothing, when it did not. */
  skipReason?: string;
  /** The estimate of `conversation` when known without a walk (see {@link trustedTokensAfter}). */
  tokens?: number;
}

/** How {@link runStages} judges and runs the stages. */
export interface StagesSettings {
  /** The first stage runs without being judged (its caller judged the whole, as a preset's session does). */
  firstIsDue?: boolean;
  /**
   * Each later stage reads the conversation as the run got it (what the agent sent; see
   * `TrustedCompaction`'s `source`): a summarizer sees what masking hid, and asks from the cache.
   */
  readsSource?: boolean;
  /** How a stage runs. @default {@link runCompactor} */
  run?: StageRunner;
}

/**
 * Runs `stages` in order on a validated conversation, all or nothing: each due stage (see
 * {@link stageDue}) on what the one before left, judged and measured on the context that leaves
 * ({@link contextAfter}). A stage's failure rejects the run: nothing of it applies.
 */
export async function runStages(
  stages: readonly Compactor[],
  conversation: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  options: CompactAsyncOptions & { estimate?: number | undefined },
  settings: StagesSettings = {},
): Promise<StagesOutput> {
  const { estimate: given, ...compactOptions } = options;
  const estimate = given ?? estimateTokens(conversation);
  const first = { contextUsed: options.contextUsed ?? estimate, estimate, conversation };
  const run = settings.run ?? runCompactor;
  const changed: StagesOutput["changed"] = [];
  let working = conversation;
  let tokens: number | undefined = estimate;
  let ran: Compactor | undefined;
  let skipReason: string | undefined;
  for (const [index, compactor] of stages.entries()) {
    const contextUsed = contextAfter(first, working, tokens);
    const due = (index === 0 && settings.firstIsDue) || stageDue(compactor, contextUsed, options);
    if (!due) continue;
    ran = compactor;
    const stageOptions: CompactAsyncOptions = {
      ...compactOptions,
      ...(options.contextUsed === undefined ? {} : { contextUsed }),
    };
    const unchanged = working === conversation ? estimate : undefined;
    const source = settings.readsSource === true ? conversation : undefined;
    const step = await run(compactor, working, summaries, stageOptions, unchanged, source);
    skipReason = step.skipReason;
    if (!conversationChanged(working, step.conversation)) continue;
    skipReason = undefined;
    working = step.conversation;
    tokens = trustedTokensAfter(compactor, step);
    changed.push({ compactor, output: step });
  }
  return {
    conversation: working,
    changed,
    ...(ran === undefined ? {} : { ran }),
    ...(skipReason === undefined ? {} : { skipReason }),
    ...(tokens === undefined ? {} : { tokens }),
  };
}
