import type { CompactionResult } from "../core/compactor.js";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { estimateMessageTokens } from "../core/message-memo.js";
import type { ThinkingRepair } from "../core/preserved-thinking.js";
import type { ArchiveKeeper } from "./archive-keeper.js";
import type { CompactionCommit } from "./compaction-commit.js";
import type { CompactionRunOutcome } from "./compaction-report.js";
import type { CompactionTrigger } from "./events.js";
import type { History } from "./history.js";
import type { CompactionBoundary } from "./hooks.js";
import {
  keepRecords,
  type LandingRules,
  landedConversation,
  NO_REPAIR,
} from "./landed-conversation.js";
import type { SessionLimits } from "./options.js";
import type { SessionEvents } from "./session-events.js";

/** What landing a replacement needs of its session. */
export interface LandingSettings {
  history: History;
  archive: ArchiveKeeper | undefined;
  keepStaleThinking: boolean;
  clock: Clock;
  events: SessionEvents;
  commit: CompactionCommit;
  limits: Pick<SessionLimits, "archiveTimeoutMs">;
}

/** A compactor's result waiting to land, with its token estimates. */
export interface ComputedStep {
  strategy: string;
  result: CompactionResult;
  tokensBefore: number;
  tokensAfter: number;
  /** The run's id, when it started with a `compaction_start` event. */
  runId?: string | undefined;
}

/** What one landing replaces: `from` (at `generation`) by `conversation`, and the steps that made it. */
export interface LandingChange {
  from: readonly Message[];
  generation: number;
  conversation: readonly Message[];
  computed: readonly ComputedStep[];
  outcome: CompactionRunOutcome;
  /** The caller's signal: it stops waiting for the archive. */
  signal?: AbortSignal | undefined;
}

/**
 * How a replacement went: it landed (with the thinking it repaired); another worker's change
 * won and nothing landed (`lost`); the archive failed to keep what it removes (it threw or
 * outlived `archiveTimeoutMs`: `timeout`, `aborted`, `archive_error`) and nothing landed; or
 * the history moved under it (`moved`: replaced, results merged into a message it changed,
 * calls appended that wait: `History.landed`'s `aborted`; or a stored session's store failed
 * the swap: `store_error`) and nothing landed.
 */
export type Replaced =
  | { status: "landed"; repair: ThinkingRepair }
  | { status: "lost" }
  | { status: "archive_failed" | "moved"; failure: CompactionError };

/**
 * Lands replacements of a session's history by the rules every path shares
 * ({@link landedConversation}: pinned messages stay as they were, the thinking a change made
 * stale goes, everything removed or replaced is archived first and the placeholders then name
 * their recall handles), through the session's commit step, and reports what landed.
 */
export class Landing {
  readonly #settings: LandingSettings;

  constructor(settings: LandingSettings) {
    this.#settings = settings;
  }

  get history(): History {
    return this.#settings.history;
  }

  get events(): SessionEvents {
    return this.#settings.events;
  }

  get commit(): CompactionCommit {
    return this.#settings.commit;
  }

  /** Lands computed steps as one replacement, then reports each (`compaction_end`, a boundary). */
  async land(trigger: CompactionTrigger, change: LandingChange): Promise<Replaced> {
    const { history } = this.#settings;
    const contextUsedBefore = history.meter.contextUsed;
    const prior = history.messages;
    const replaced = await this.replace(
      change.from,
      change.generation,
      change.conversation,
      change.signal,
    );
    if (replaced.status !== "landed") return replaced;
    const cache = { ...cacheSplit(history, prior), messagesBefore: prior.length };
    change.computed.forEach((computed, index) => {
      // The repair happened once, after the last of them.
      const last = index === change.computed.length - 1;
      const step = last ? replaced.repair : NO_REPAIR;
      this.#ended(trigger, computed, step, contextUsedBefore, change.outcome, cache);
    });
    return replaced;
  }

  /**
   * Replaces the prefix `from` (the history at `generation`) by `compacted`, keeping what was
   * appended meanwhile after it; with `archive: false`, without keeping what it removes; with
   * `local`, in this worker's copy alone (see `CompactionCommit.landLocally`: the store keeps
   * what it removes, so nothing is archived).
   */
  async replace(
    from: readonly Message[],
    generation: number,
    compacted: readonly Message[],
    signal: AbortSignal | undefined,
    options: { archive?: false; local?: true } = {},
  ): Promise<Replaced> {
    const { history, commit, limits } = this.#settings;
    const local = options.local === true ? commit.landLocally : undefined;
    const archive =
      options.archive === false || local !== undefined ? undefined : this.#settings.archive;
    const rules: LandingRules = {
      pinned: history.pinned,
      keepStaleThinking: this.#settings.keepStaleThinking,
      clock: this.#settings.clock,
      archive,
    };
    const before = history.messages;
    const landedTo = landedConversation(rules, before, from, compacted);
    const { repair, records } = landedTo;
    let { conversation } = landedTo;
    if (archive !== undefined) {
      try {
        const keep = () => archive.keep(records, landedTo.conversation);
        conversation = await keepRecords(keep, limits.archiveTimeoutMs, signal);
      } catch (error) {
        if (!CompactionError.isInstance(error)) throw error;
        return { status: "archive_failed", failure: error };
      }
    }
    let landed: boolean;
    try {
      const replacement = { before, generation, conversation, rules };
      landed = await (local?.call(commit, history, replacement) ??
        commit.land(history, replacement));
    } catch (error) {
      // The history moved under it, or (a stored session) the store failed: nothing landed.
      if (!CompactionError.isInstance(error)) throw error;
      if (error.code !== "aborted" && error.code !== "store_error") throw error;
      return { status: "moved", failure: error };
    }
    return landed ? { status: "landed", repair } : { status: "lost" };
  }

  #ended(
    trigger: CompactionTrigger,
    computed: ComputedStep,
    repair: ThinkingRepair,
    contextUsedBefore: number,
    outcome: CompactionRunOutcome,
    split: { cacheReadTokens: number; cacheWriteTokens: number; messagesBefore: number },
  ): void {
    const { history, events } = this.#settings;
    const { messagesBefore, ...cache } = split;
    const { result, strategy, tokensBefore, runId } = computed;
    const tokensAfter = computed.tokensAfter - repair.thinkingTokensDropped;
    // One object reaches the `afterCompact` hooks, the `compaction_end` listeners and the report:
    // frozen, so none of them rewrites what the others read.
    const boundary: CompactionBoundary = Object.freeze({
      trigger,
      strategy,
      tokensBefore,
      tokensAfter,
      turnsCompacted: result.turnsCompacted,
      toolResultsCompacted: result.toolResultsSummarized + result.toolResultsRedacted,
      toolInputsCleared: result.toolInputsCleared ?? 0,
      messagesRemoved: result.messagesRemoved ?? 0,
      thinkingBlocksDropped: repair.thinkingBlocksDropped,
      thinkingTokensDropped: repair.thinkingTokensDropped,
      toolExchangeClosed: repair.toolExchangeClosed,
      ...cache,
    });
    outcome.compacted = true;
    outcome.boundaries.push(boundary);
    events.emit({
      type: "compaction_end",
      trigger,
      strategy,
      result,
      tokensBefore,
      tokensAfter,
      contextUsedBefore,
      contextUsedAfter: history.meter.contextUsed,
      boundary,
      messagesBefore,
      messagesAfter: history.messages.length,
      ...(runId === undefined ? {} : { runId }),
    });
  }
}

/**
 * What the next request reads from the prompt cache after a replacement, and what it writes:
 * the overhead (system, tools) and the messages kept the same before the first changed one are
 * a prefix the cache holds; everything from there on is new.
 */
function cacheSplit(
  history: History,
  prior: readonly Message[],
): { cacheReadTokens: number; cacheWriteTokens: number } {
  const now = history.messages;
  let first = 0;
  while (first < now.length && first < prior.length && now[first] === prior[first]) first += 1;
  const { meter } = history;
  // The meter's estimate is the sum over `now`: the shorter side is estimated, the other follows.
  const kept = first >= now.length - first;
  const estimated = kept ? estimateRange(now, first, now.length) : estimateRange(now, 0, first);
  const rest = meter.estimate - estimated;
  // Counted as the measure counts them: the overhead, and the messages at the meter's ratio.
  const write = Math.ceil(meter.ratio * (kept ? estimated : rest));
  return { cacheReadTokens: Math.max(0, meter.contextUsed - write), cacheWriteTokens: write };
}

/** The estimate of `messages` from `start` to before `end`. */
function estimateRange(messages: readonly Message[], start: number, end: number): number {
  let tokens = 0;
  for (let index = start; index < end; index += 1)
    tokens += estimateMessageTokens(messages[index]!);
  return tokens;
}
