import { type CompactionResult, conversationChanged } from "../core/compactor.js";
import { reusesToolIds, withDistinctToolIds } from "../core/distinct-tool-ids.js";
import { validatedEstimate } from "../core/entry-validation.js";
import { type CompactionError, parseOrThrow, ValidationError } from "../core/errors.js";
import type { LateResults } from "../core/late-results.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { ItemOrigins } from "../internal/item-origins.js";
import { StatelessCompaction } from "./stateless-compaction.js";
import {
  COMPACT_MESSAGES_OPTIONS_SCHEMA,
  type CompactedMessages,
  type CompactMessagesOptions,
} from "./stateless-options.js";

/** A provider's message format, as a one-call helper converts it. */
export interface MessageFormat<T> {
  /** The helper's name, for the messages of its errors. */
  entry: string;
  /** What its messages are called in an error (`"Anthropic messages"`). */
  what: string;
  /**
   * Converts the caller's messages to ours (throwing a `ValidationError` on malformed ones),
   * noting in `origins` the items each came from.
   */
  from: (input: readonly T[], origins: ItemOrigins<T>) => Message[];
  /**
   * What becomes of a tool result given only after an assistant message ({@link LateResults}):
   * `"kept"` where the API takes it there. @default "told"
   */
  lateResults?: LateResults;
  /**
   * Whether the API refuses a tool call id twice: a call whose id an answered call had is then
   * written anew (`withDistinctToolIds`). @default false
   */
  distinctToolIds?: boolean;
  /** Converts ours back, the caller's items for the messages `origins` knows unchanged. */
  to: (messages: readonly Message[], origins: ItemOrigins<T>) => T[];
  /**
   * The context the messages themselves report (LangChain's `usage_metadata` on the last reply
   * that has one), given what `from` made of them as the intake took them (clamped; by position
   * as `from` made them): the measure when the caller gives no `contextUsed`.
   * @default none: the local estimate
   */
  reportedContext?: (taken: readonly Message[]) => number | undefined;
}

/**
 * The one-call stateless helpers' common path (each adapter's `compact…`): the options
 * checked, the messages converted and taken in as the session's intake takes them (long texts
 * clamped), the context measured (a `contextUsed` far below the estimate not trusted), the
 * session's compaction run and landed ({@link StatelessCompaction}: its default compactors,
 * pins, stale thinking removed, the archive, the last resort), and the result converted back.
 * The input array itself comes back when nothing changed.
 */
export async function compactMessagesOnce<T>(
  input: readonly T[],
  options: CompactMessagesOptions,
  format: MessageFormat<T>,
): Promise<CompactedMessages<T>> {
  const parsed = checkedCall(input, options, format);
  const stateless = new StatelessCompaction(parsed);
  const origins = new ItemOrigins(input);
  const converted = format.from(input, origins);
  origins.made(converted);
  if (format.distinctToolIds === true && reusesToolIds(converted)) origins.mends = true;
  // Checked before the intake reads them: a lookup for a conversion remembered as checked.
  const convertedEstimate = validatedEstimate(converted, format.what);
  const intake = stateless.intake(converted, undefined, format.lateResults);
  // Unclamped, the intake's messages are the conversion's.
  const taken = intake.clamped.length === 0 && !intake.repaired;
  const estimate = taken ? convertedEstimate : estimateTokens(intake.messages);
  const contextUsed = stateless.contextUsed(
    parsed.contextUsed ?? format.reportedContext?.(intake.messages),
    estimate,
  );
  const outcome = await stateless.compact(taken ? converted : intake.messages, contextUsed, {
    signal: parsed.signal,
    estimate,
    records: intake.records,
    facts: intake.facts,
  });
  const { conversation } = outcome;
  const done = { ...outcome, contextUsed };
  if (!conversationChanged(converted, conversation) && !origins.mends)
    return compactedMessages(input as T[], false, done);
  const sent = format.distinctToolIds === true ? withDistinctToolIds(conversation) : conversation;
  return compactedMessages(format.to(sent, origins), true, done);
}

/**
 * A one-call helper's messages and options, checked where they enter, before anything reads
 * them (a stateless handler's body may be anything): its options parsed.
 * @throws {ValidationError} naming the helper's messages or options.
 */
export function checkedCall(
  input: unknown,
  options: CompactMessagesOptions,
  names: { entry: string; what: string },
): CompactMessagesOptions {
  if (!Array.isArray(input)) {
    throw new ValidationError(names.what, [{ path: [], message: "must be an array of messages" }]);
  }
  return parseOrThrow(COMPACT_MESSAGES_OPTIONS_SCHEMA, options, `${names.entry} options`);
}

/** What a one-call helper returns: the messages, whether they changed, and what it did. */
export function compactedMessages<T>(
  messages: T[],
  compacted: boolean,
  done: { result: CompactionResult; contextUsed: number; error?: CompactionError | undefined },
): CompactedMessages<T> {
  const { result, contextUsed, error } = done;
  return { messages, compacted, result, contextUsed, ...(error === undefined ? {} : { error }) };
}

/** An adapter's one-call helper: {@link compactMessagesOnce} in its format. */
export function oneCallHelper<T>(
  format: MessageFormat<T>,
): (
  messages: readonly T[] | readonly unknown[],
  options: CompactMessagesOptions,
) => Promise<CompactedMessages<T>> {
  return (messages, options) => compactMessagesOnce(messages as readonly T[], options, format);
}
