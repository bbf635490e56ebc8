import { trimOldest } from "../compactors/overflow-trim.js";
import {
  type CompactionContext,
  type CompactionOutput,
  type CompactionResult,
  type Compactor,
  conversationChanged,
  isTrustedCompactor,
  runCompactor,
} from "../core/compactor.js";
import { CompactionError, ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { estimateTokens } from "../core/tokens.js";
import { assertMessages } from "../core/validate-conversation.js";
import type { CompactionEvent, CompactionTrigger, Logger } from "./events.js";
import type { History } from "./history.js";
import type {
  AfterCompactHook,
  BeforeCompactDecision,
  BeforeCompactHook,
  CompactionBoundary,
} from "./hooks.js";

/** What one compactor did in a run. */
export interface CompactionStepResult {
  /** The compactor's strategy name: `threshold`, `llm`, `hybrid`, or `custom`. */
  strategy: string;
  result: CompactionResult;
}

/** What a run of the session's compactors did. */
export interface CompactionRunOutcome {
  /** The context measure when the run started. */
  contextUsedBefore: number;
  /** Whether the conversation changed. */
  compacted: boolean;
  /** Each compactor that ran, in order. */
  steps: CompactionStepResult[];
  /** A boundary record for each compactor that changed the conversation, in order. */
  boundaries: CompactionBoundary[];
  /** The failure of an automatic run; the conversation is as the failed compactor found it. */
  error?: CompactionError;
  /** The messages `trimOnOverflow` removed, when it had to. */
  trimmed?: Message[];
}

/** Options of one run. */
export interface CompactionRunOptions {
  signal?: AbortSignal;
  instructions?: string;
}

/** What the runner needs from its session. */
export interface CompactionRunnerSettings {
  history: History;
  contextLimit: number;
  compactors: readonly Compactor[];
  maxConsecutiveFailures: number;
  /** `trimOnOverflow`'s target utilisation, or `undefined` when it is off. */
  trimTarget: number | undefined;
  clock: Clock;
  emit: (event: CompactionEvent) => void;
  logger: Logger | undefined;
  beforeCompact: BeforeCompactHook | undefined;
  afterCompact: AfterCompactHook | undefined;
}

interface Computed {
  strategy: string;
  result: CompactionResult;
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * The one stage loop of automatic and manual compaction. Automatic (`maybeCompact`): each
 * compactor whose `shouldCompact` holds runs on the conversation as the previous one left it,
 * and what it changes is applied at once; a failure stops the run and is reported, not thrown.
 * Manual (`forceCompact`): every compactor runs, the thresholds ignored, and the result is
 * applied only when all succeeded (all or nothing); a failure rejects. A compactor's returned
 * conversation is its result: it changed something when it differs from its input.
 */
export class CompactionRunner {
  readonly #settings: CompactionRunnerSettings;
  /** Automatic summaries failed in a row (the circuit breaker). */
  consecutiveFailures = 0;
  #hookDepth = 0;

  constructor(settings: CompactionRunnerSettings) {
    this.#settings = settings;
  }

  /** Whether a `beforeCompact` hook is running (a compaction started from it would wait forever). */
  get inHook(): boolean {
    return this.#hookDepth > 0;
  }

  /** The session's context measure. */
  get contextUsed(): number {
    return this.#settings.history.meter.contextUsed;
  }

  async run(
    trigger: CompactionTrigger,
    options: CompactionRunOptions,
  ): Promise<CompactionRunOutcome> {
    const { history, compactors, contextLimit } = this.#settings;
    const manual = trigger === "manual";
    const input = history.snapshot();
    const inputGeneration = history.generation;
    let working = input;
    const pending: Computed[] = [];
    const outcome: CompactionRunOutcome = {
      contextUsedBefore: this.contextUsed,
      compacted: false,
      steps: [],
      boundaries: [],
    };

    for (const compactor of compactors) {
      const strategy = strategyOf(compactor);
      const summarizes = compactor.isAsync === true;
      if (!manual) {
        if (!compactor.shouldCompact(this.contextUsed, contextLimit)) continue;
        if (summarizes && this.consecutiveFailures >= this.#settings.maxConsecutiveFailures) {
          this.#skip(
            trigger,
            strategy,
            "circuit_open",
            "automatic summaries paused after repeated failures",
          );
          continue;
        }
      }
      const decision = await this.#askBeforeCompact(trigger, strategy, options.instructions);
      if (decision.veto === true) {
        this.#skip(trigger, strategy, "vetoed", "the beforeCompact hook vetoed it");
        continue;
      }
      const from = manual ? working : history.snapshot();
      const generation = manual ? inputGeneration : history.generation;
      if (summarizes) {
        this.#settings.emit({
          type: "compaction_start",
          trigger,
          strategy,
          contextUsed: this.contextUsed,
          contextLimit,
        });
      }
      let output: CompactionOutput;
      try {
        output = await this.#compact(compactor, from, trigger, {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(decision.instructions === undefined ? {} : { instructions: decision.instructions }),
        });
      } catch (error) {
        const failure = asCompactionError(error, compactor);
        // A caller's abort says nothing about the summariser: it does not trip the breaker.
        if (!manual && summarizes && failure.code !== "aborted") this.consecutiveFailures += 1;
        this.#settings.emit({
          type: "compaction_failed",
          trigger,
          strategy,
          error: failure,
          consecutiveFailures: this.consecutiveFailures,
        });
        if (manual) throw failure;
        outcome.error = failure;
        break;
      }
      if (!manual && summarizes) this.consecutiveFailures = 0;
      const computed: Computed = {
        strategy,
        result: output.result,
        tokensBefore: output.result.tokensBefore ?? estimateTokens(from),
        tokensAfter: output.result.tokensAfter ?? estimateTokens(output.conversation),
      };
      outcome.steps.push({ strategy, result: output.result });
      if (!conversationChanged(from, output.conversation)) {
        this.#skip(
          trigger,
          strategy,
          "nothing_to_compact",
          output.skipReason ?? "nothing to compact",
        );
        continue;
      }
      if (manual) {
        working = output.conversation;
        pending.push(computed);
        continue;
      }
      const contextUsedBefore = this.contextUsed;
      this.#apply(from.length, generation, output.conversation);
      this.#ended(trigger, computed, contextUsedBefore, outcome);
    }

    if (manual) {
      if (pending.length > 0) {
        const contextUsedBefore = this.contextUsed;
        this.#apply(input.length, inputGeneration, working);
        for (const computed of pending) this.#ended(trigger, computed, contextUsedBefore, outcome);
      }
      this.consecutiveFailures = 0;
    } else {
      const trimmed = this.#trimOnOverflow();
      if (trimmed !== undefined) {
        outcome.trimmed = trimmed;
        outcome.compacted = true;
      }
    }
    return outcome;
  }

  /** Calls `afterCompact` with each boundary; run after the compaction released the session. */
  async notifyAfterCompact(boundaries: readonly CompactionBoundary[]): Promise<void> {
    const hook = this.#settings.afterCompact;
    if (hook === undefined) return;
    for (const boundary of boundaries) {
      try {
        await hook(boundary);
      } catch (error) {
        this.#settings.logger?.warn("agent-compaction: the afterCompact hook threw", { error });
      }
    }
  }

  async #compact(
    compactor: Compactor,
    conversation: readonly Message[],
    trigger: CompactionTrigger,
    options: CompactionRunOptions,
  ): Promise<CompactionOutput> {
    const { history, contextLimit } = this.#settings;
    // What the measure counts beyond the messages (system prompt, tools) applies to any version of them.
    const overhead = Math.max(0, history.meter.contextUsed - history.meter.estimate);
    const context: CompactionContext = {
      contextLimit,
      contextUsed: overhead + estimateTokens(conversation),
      trigger,
    };
    const output = await runCompactor(compactor, conversation, new Map(history.summaries), {
      ...options,
      ...context,
    });
    if (!isTrustedCompactor(compactor)) {
      // What a custom compactor returns enters the session: validated here, once.
      if (typeof output !== "object" || output === null || !Array.isArray(output.conversation)) {
        throw new ValidationError("compactor output", [
          { path: ["conversation"], message: "must be an array of messages" },
        ]);
      }
      assertMessages(output.conversation, "compactor output conversation");
    }
    return output;
  }

  #apply(length: number, generation: number, compacted: readonly Message[]): void {
    if (!this.#settings.history.splice(length, generation, compacted)) {
      throw new CompactionError("aborted", "the conversation was replaced while compacting");
    }
  }

  #ended(
    trigger: CompactionTrigger,
    computed: Computed,
    contextUsedBefore: number,
    outcome: CompactionRunOutcome,
  ): void {
    const { result, strategy, tokensBefore, tokensAfter } = computed;
    const boundary: CompactionBoundary = {
      trigger,
      strategy,
      tokensBefore,
      tokensAfter,
      turnsCompacted: result.turnsCompacted,
      toolResultsCompacted: result.toolResultsSummarized + result.toolResultsRedacted,
      toolInputsCleared: result.toolInputsCleared ?? 0,
    };
    outcome.compacted = true;
    outcome.boundaries.push(boundary);
    this.#settings.emit({
      type: "compaction_end",
      trigger,
      strategy,
      result,
      tokensBefore,
      tokensAfter,
      contextUsedBefore,
      contextUsedAfter: this.contextUsed,
      boundary,
    });
  }

  #skip(
    trigger: CompactionTrigger,
    strategy: string,
    reason: "circuit_open" | "vetoed" | "nothing_to_compact",
    detail: string,
  ): void {
    this.#settings.emit({ type: "compaction_skipped", trigger, strategy, reason, detail });
  }

  /** Asks the `beforeCompact` hook; a hook that throws is logged and ignored. */
  async #askBeforeCompact(
    trigger: CompactionTrigger,
    strategy: string,
    instructions: string | undefined,
  ): Promise<BeforeCompactDecision> {
    const hook = this.#settings.beforeCompact;
    if (hook === undefined) return instructions === undefined ? {} : { instructions };
    const { history, contextLimit } = this.#settings;
    let decision: BeforeCompactDecision | undefined;
    this.#hookDepth += 1;
    try {
      decision = await hook({
        trigger,
        strategy,
        contextUsed: this.contextUsed,
        contextLimit,
        messages: history.messages,
        ...(instructions === undefined ? {} : { instructions }),
      });
    } catch (error) {
      this.#settings.logger?.warn("agent-compaction: the beforeCompact hook threw", { error });
    } finally {
      this.#hookDepth -= 1;
    }
    const added =
      typeof decision?.instructions === "string" && decision.instructions.trim() !== ""
        ? decision.instructions
        : undefined;
    const combined = [instructions, added].filter((part) => part !== undefined).join("\n\n");
    return {
      ...(decision?.veto === true ? { veto: true } : {}),
      ...(combined === "" ? {} : { instructions: combined }),
    };
  }

  /** Removes the oldest messages when the context is still above the window (opt-in). */
  #trimOnOverflow(): Message[] | undefined {
    const { history, contextLimit, trimTarget, clock } = this.#settings;
    if (trimTarget === undefined || this.contextUsed <= contextLimit) return undefined;
    const contextUsedBefore = this.contextUsed;
    // What the measure counts beyond the messages (system prompt, tools) stays.
    const overhead = Math.max(0, contextUsedBefore - history.meter.estimate);
    const budget = Math.floor(trimTarget * contextLimit) - overhead;
    const output = trimOldest(history.messages, budget, { clock });
    if (output === undefined) return undefined;
    history.replace(output.conversation);
    this.#settings.emit({
      type: "context_trimmed",
      trigger: "auto",
      removed: output.removed,
      contextUsedBefore,
      contextUsedAfter: this.contextUsed,
    });
    return output.removed;
  }
}

/** A compactor's strategy name: its `strategy` property, else `custom`. */
export function strategyOf(compactor: Compactor): string {
  const strategy = (compactor as { strategy?: unknown }).strategy;
  return typeof strategy === "string" && strategy !== "" ? strategy : "custom";
}

/**
 * A failure as a `CompactionError`: a summariser's failures already are one; anything else a
 * compactor throws is a bug in that compactor (`compactor_error`), never the summariser's.
 */
function asCompactionError(error: unknown, compactor: Compactor): CompactionError {
  if (CompactionError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CompactionError(
    "compactor_error",
    `the ${strategyOf(compactor)} compactor threw: ${message}`,
    { cause: error },
  );
}
