import type { CompactionResult } from "../core/compactor.js";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { estimateTokens } from "../core/message-memo.js";
import type { ThinkingRepair } from "../core/preserved-thinking.js";
import { freezeMessages } from "../internal/frozen.js";
import type { ArchiveKeeper } from "./archive-keeper.js";
import type { CompactionCommit } from "./compaction-commit.js";
import type { CompactionRunOutcome } from "./compaction-report.js";
import type { CompactionEvent, CompactionTrigger } from "./events.js";
import type { History } from "./history.js";
import type { CompactionBoundary } from "./hooks.js";
import {
  archiveFailure,
  keepRecords,
  type LandingRules,
  landedConversation,
  NO_REPAIR,
  repairThinking,
} from "./landed-conversation.js";
import type { SessionLimits } from "./options.js";

export { archiveFailure };

/** What landing a replacement needs of its session. */
export interface Landing {
  history: History;
  archive: ArchiveKeeper | undefined;
  keepStaleThinking: boolean;
  clock: Clock;
  emit: (event: CompactionEvent) => void;
  commit: CompactionCommit;
  contextLimit: number;
  trimTarget: number | undefined;
  contextUsed: () => number;
  limits: Pick<SessionLimits, "archiveTimeoutMs">;
}

/** A compactor's result waiting to land, with its token estimates. */
export interface ComputedStep {
  strategy: string;
  result: CompactionResult;
  tokensBefore: number;
  tokensAfter: number;
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
 * Lands computed steps as one replacement, then reports each (`compaction_end`, a boundary);
 * `false` when another worker's change won and nothing landed.
 */
export async function landCompaction(
  landing: Landing,
  trigger: CompactionTrigger,
  change: LandingChange,
): Promise<boolean> {
  const contextUsedBefore = landing.contextUsed();
  const prior = landing.history.messages;
  const repair = await replaceHistory(
    landing,
    change.from,
    change.generation,
    change.conversation,
    change.signal,
  );
  if (repair === undefined) return false;
  const cache = { ...cacheSplit(landing, prior), messagesBefore: prior.length };
  change.computed.forEach((computed, index) => {
    // The repair happened once, after the last of them.
    const last = index === change.computed.length - 1;
    const step = last ? repair : NO_REPAIR;
    ended(landing, trigger, computed, step, contextUsedBefore, change.outcome, cache);
  });
  return true;
}

/**
 * What the next request reads from the prompt cache after a replacement, and what it writes:
 * the overhead (system, tools) and the messages kept the same before the first changed one are
 * a prefix the cache holds; everything from there on is new.
 */
function cacheSplit(
  landing: Landing,
  prior: readonly Message[],
): { cacheReadTokens: number; cacheWriteTokens: number } {
  const now = landing.history.messages;
  let first = 0;
  while (first < now.length && first < prior.length && now[first] === prior[first]) first += 1;
  const { meter } = landing.history;
  const overhead = Math.max(0, meter.contextUsed - meter.estimate);
  return {
    cacheReadTokens: overhead + estimateTokens(now.slice(0, first)),
    cacheWriteTokens: estimateTokens(now.slice(first)),
  };
}

/**
 * Replaces the prefix `from` by `compacted`, keeping what was appended meanwhile: landed by the
 * rules every path shares ({@link landedConversation}: pinned messages stay as they were, the
 * thinking the change made stale goes, everything removed or replaced is archived first and the
 * placeholders then name their recall handles). `undefined` when the commit lost a race.
 * @throws {CompactionError} when the archive fails (see {@link archiveFailure}): nothing landed.
 */
export async function replaceHistory(
  landing: Landing,
  from: readonly Message[],
  generation: number,
  compacted: readonly Message[],
  signal?: AbortSignal,
): Promise<ThinkingRepair | undefined> {
  const { history, archive } = landing;
  const rules: LandingRules = {
    pinned: history.pinned,
    keepStaleThinking: landing.keepStaleThinking,
    clock: landing.clock,
    archive,
  };
  const before = history.messages;
  const { conversation, repair, records } = landedConversation(rules, before, from, compacted);
  if (archive !== undefined) {
    const milliseconds = landing.limits.archiveTimeoutMs;
    await keepRecords(() => archive.store(records), milliseconds, signal);
  }
  const build = (): Message[] => {
    if (generation !== history.generation) {
      throw new CompactionError("aborted", "the conversation was replaced while compacting");
    }
    const now = history.messages;
    if (now.length === before.length) return conversation;
    // Appended while the archive wrote: they follow the change, so their thinking goes too.
    return repairThinking(rules, now, [...conversation, ...now.slice(before.length)]).conversation;
  };
  const landed = await landing.commit.commit(build, (next) => {
    // What lands is the session's: frozen, so no compactor or caller holding it can change it.
    freezeMessages(next);
    history.replace(next);
  });
  return landed ? repair : undefined;
}

function ended(
  landing: Landing,
  trigger: CompactionTrigger,
  computed: ComputedStep,
  repair: ThinkingRepair,
  contextUsedBefore: number,
  outcome: CompactionRunOutcome,
  split: { cacheReadTokens: number; cacheWriteTokens: number; messagesBefore: number },
): void {
  const { messagesBefore, ...cache } = split;
  const { result, strategy, tokensBefore } = computed;
  const tokensAfter = computed.tokensAfter - repair.thinkingTokensDropped;
  const boundary: CompactionBoundary = {
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
  };
  outcome.compacted = true;
  outcome.boundaries.push(boundary);
  landing.emit({
    type: "compaction_end",
    trigger,
    strategy,
    result,
    tokensBefore,
    tokensAfter,
    contextUsedBefore,
    contextUsedAfter: landing.contextUsed(),
    boundary,
    messagesBefore,
    messagesAfter: landing.history.messages.length,
  });
}
