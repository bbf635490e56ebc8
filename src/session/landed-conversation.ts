import { requestWithin } from "../core/abort.js";
import type { ArchiveRecord } from "../core/archive-record.js";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { keepThinkingValid, type ThinkingRepair } from "../core/preserved-thinking.js";
import type { ArchiveKeeper } from "./archive-keeper.js";
import { restorePinned } from "./pins.js";

/**
 * The rules every compaction lands by, the session's and the stateless paths' alike (the AI
 * SDK's `compactModelMessages`, `compactionPrepareStep` and middleware): one implementation, so
 * every path keeps the same promises.
 */
export interface LandingRules {
  /** Ids of the messages kept as they are (see {@link restorePinned}). */
  pinned: ReadonlySet<string>;
  /** Keep the thinking a change made stale (`keepStaleThinking`). */
  keepStaleThinking: boolean;
  /** Clock for the messages that close an open tool exchange. */
  clock: Clock;
  /** Where what is removed or replaced is kept; none: placeholders name no handle. */
  archive: ArchiveKeeper | undefined;
  /**
   * The conversation before holds no thinking block (its caller's walk saw none): the repair
   * reads only the messages the compaction made. @default false
   */
  thinkingFree?: boolean;
}

/** The repair of a landing that removed nothing. */
export const NO_REPAIR: ThinkingRepair = Object.freeze({
  firstChange: 0,
  thinkingBlocksDropped: 0,
  thinkingTokensDropped: 0,
  toolExchangeClosed: false,
});

/**
 * `after` with every thinking block the change from `before` made stale removed (see
 * {@link keepThinkingValid}), unless the rules keep them.
 */
export function repairThinking(
  rules: LandingRules,
  before: readonly Message[],
  after: readonly Message[],
): { conversation: Message[]; repair: ThinkingRepair } {
  return rules.keepStaleThinking
    ? { conversation: [...after], repair: NO_REPAIR }
    : keepThinkingValid(before, after, rules.clock, rules.thinkingFree === true);
}

/** What a compaction lands as, before it replaces anything. */
export interface LandedConversation {
  conversation: Message[];
  repair: ThinkingRepair;
  /** What was removed or replaced, under the handles the placeholders name: keep them first. */
  records: ArchiveRecord[];
}

/**
 * What replacing `from` (a prefix of `before`) by `compacted` lands as: pinned messages as
 * they were, the messages after `from` kept after it, the thinking the change made stale
 * removed, and everything removed or replaced as archive records (each placeholder then names
 * its handle). Pure: keep the records before the conversation replaces anything.
 */
export function landedConversation(
  rules: LandingRules,
  before: readonly Message[],
  from: readonly Message[],
  compacted: readonly Message[],
): LandedConversation {
  const kept = restorePinned(from, compacted, rules.pinned);
  const after = from.length === before.length ? kept : [...kept, ...before.slice(from.length)];
  const repaired = repairThinking(rules, before, after);
  if (rules.archive === undefined) return { ...repaired, records: [] };
  const prepared = rules.archive.prepare(before, repaired.conversation);
  return {
    conversation: prepared.conversation,
    repair: repaired.repair,
    records: prepared.records,
  };
}

/**
 * Runs `store` (an archive keeping records) within `milliseconds` and the caller's `signal`.
 * @throws {CompactionError} `archive_error` (its `put` threw), `timeout` or `aborted`.
 */
export function keepRecords<T>(
  store: () => Promise<T>,
  milliseconds: number,
  signal: AbortSignal | undefined,
): Promise<T> {
  return requestWithin(store, {
    signal,
    milliseconds,
    what: "the archive's put",
    failure: (error) =>
      new CompactionError(
        "archive_error",
        `the archive's put failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      ),
  });
}
