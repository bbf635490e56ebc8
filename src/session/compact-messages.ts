import { type CompactionResult, conversationChanged } from "../core/compactor.js";
import { reusesToolIds } from "../core/distinct-tool-ids.js";
import { validatedEstimate } from "../core/entry-validation.js";
import { type CompactionError, parseOrThrow, ValidationError } from "../core/errors.js";
import type { LateResults } from "../core/late-results.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { ItemOrigins } from "../internal/item-origins.js";
import type { Continued, RecentHistories } from "../internal/recent-histories.js";
import { snapshotOf } from "../internal/same-value.js";
import { arrayLength, UNREADABLE } from "../internal/unreadable.js";
import { historiesOf } from "./compaction-memory.js";
import { distinctSent } from "./distinct-sent-ids.js";
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
  /**
   * The messages as the conversion takes them, before it (LangChain's with interrupted calls
   * closed): run on what goes (a remembered conversation continued), so the memory compares
   * the caller's own messages. @default the messages themselves
   */
  prepare?: (input: readonly T[]) => readonly T[];
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
 * A conversation a helper compacted, given as its `memory`: the caller's messages (copies: one
 * the caller changes in place afterwards is not the same), and what was sent for them
 * (`undefined`: they went as they came), its last `verbatim` items the caller's last messages.
 */
interface SentHistory<T> {
  readonly input: readonly unknown[];
  readonly sent: readonly T[] | undefined;
  readonly verbatim: number;
}

/**
 * The one-call stateless helpers' common path (each adapter's `compact…`): the options
 * checked, the messages converted and taken in as the session's intake takes them (long texts
 * clamped), the context measured (a `contextUsed` far below the estimate not trusted), the
 * session's compaction run and landed ({@link StatelessCompaction}: its default compactors,
 * pins, stale thinking removed, the archive, the last resort), and the result converted back.
 * The input array itself comes back when nothing changed. With a `memory`, messages that
 * continue a conversation compacted before go on from what was sent for it (`CompactionMemory`).
 */
export async function compactMessagesOnce<T>(
  input: readonly T[],
  options: CompactMessagesOptions,
  format: MessageFormat<T>,
): Promise<CompactedMessages<T>> {
  const parsed = checkedCall(input, options, format);
  if (parsed.memory === undefined) return compactRemembered(input, parsed, format, undefined);
  const histories = historiesOf<SentHistory<T>>(parsed.memory, format.entry);
  // Each message read once, as without a memory: what is compared is what is converted.
  const own = messagesFrom(input, 0, format.what);
  const done = await histories.alone(own, parsed.signal, () =>
    compactRemembered(own, parsed, format, histories),
  );
  return done.messages === own ? { ...done, messages: input as T[] } : done;
}

/** {@link compactMessagesOnce} with the options checked, the conversations `histories` holds. */
async function compactRemembered<T>(
  input: readonly T[],
  parsed: CompactMessagesOptions,
  format: MessageFormat<T>,
  histories: RecentHistories<SentHistory<T>> | undefined,
): Promise<CompactedMessages<T>> {
  const known = histories?.match(input);
  let sending = continued(input, known);
  let result: CompactedMessages<T>;
  try {
    result = await compactContinued(sending, input, parsed, format);
  } catch (error) {
    // A malformed message is named at its place in the caller's messages, checked as they came.
    if (sending === input || !(error instanceof ValidationError)) throw error;
    sending = input;
    result = await compactContinued(input, input, parsed, format);
  }
  if (histories === undefined) return result;
  // Continued to its end: in its place; up to a message changed since: beside it.
  const { history, matched = 0 } = known ?? {};
  const previous = matched === history?.input.length ? history : undefined;
  histories.remember(previous, remembered(input, known, sending, result));
  return result;
}

/**
 * What a conversation the helper compacted before (`known`) sent, up to the messages the call
 * changed or dropped since, and the call's messages after; the input itself when it continues
 * none, or one that went as it came.
 */
function continued<T>(
  input: readonly T[],
  known: Continued<SentHistory<T>> | undefined,
): readonly T[] {
  if (known?.history.sent === undefined) return input;
  const { history, matched } = known;
  const kept = history.sent!.slice(0, history.sent!.length - (history.input.length - matched));
  return [...kept, ...input.slice(matched)];
}

/**
 * The history to remember of a call that sent `sending` (continuing `known`, or its `input`):
 * its messages copied (those it kept of `known` as copied then), what it sent (copied: the
 * caller may append to the array it is given back), and how many of those, the last ones, are
 * the caller's last messages as they came (the same objects at the end of what was sent and
 * of what went in, and the caller's own there).
 */
function remembered<T>(
  input: readonly T[],
  known: Continued<SentHistory<T>> | undefined,
  sending: readonly T[],
  result: CompactedMessages<T>,
): SentHistory<T> {
  const matched = known?.matched ?? 0;
  const copies = [
    ...(known?.history.input.slice(0, matched) ?? []),
    ...input.slice(matched).map(snapshotOf),
  ];
  if (!result.compacted) return { input: copies, sent: undefined, verbatim: 0 };
  const sent = result.messages;
  let same = 0;
  while (
    same < sent.length &&
    same < sending.length &&
    sent[sent.length - 1 - same] === sending[sending.length - 1 - same]
  )
    same += 1;
  const history = known?.history;
  // The caller's messages at the end of `sending`: those after what was kept of `known`, and its verbatim ones kept.
  const theirs =
    sending === input || history === undefined
      ? input.length
      : input.length - history.input.length + history.verbatim;
  return { input: copies, sent: sent.slice(), verbatim: Math.min(same, theirs) };
}

/**
 * {@link compactMessagesOnce} on the messages to send (`sending`: the caller's `input`, or what
 * was sent before and the messages added since), the options checked. What goes differs from
 * the caller's messages wherever what the conversion takes does (what was sent before, calls
 * closed): it is then `compacted`.
 */
async function compactContinued<T>(
  sending: readonly T[],
  input: readonly T[],
  parsed: CompactMessagesOptions,
  format: MessageFormat<T>,
): Promise<CompactedMessages<T>> {
  const prepared = format.prepare?.(sending) ?? sending;
  const done = await compactPrepared(prepared, parsed, format);
  return prepared === input || done.compacted ? done : { ...done, compacted: true };
}

/** {@link compactContinued} on the messages as the conversion takes them. */
async function compactPrepared<T>(
  input: readonly T[],
  parsed: CompactMessagesOptions,
  format: MessageFormat<T>,
): Promise<CompactedMessages<T>> {
  const stateless = new StatelessCompaction(parsed);
  const origins = new ItemOrigins(input, parsed.archive === undefined || parsed.archive === false);
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
  const sent =
    format.distinctToolIds === true
      ? distinctSent(converted, conversation, origins.mends)
      : conversation;
  return compactedMessages(format.to(sent, origins), true, done);
}

/**
 * `messages` from `from` on, each read once (as `slice` copies them).
 * @throws {ValidationError} naming `what` and the message whose getter (or the array's proxy) threw.
 */
export function messagesFrom<T>(messages: readonly T[], from: number, what: string): T[] {
  try {
    return messages.slice(from);
  } catch (error) {
    let at: number | undefined;
    for (let index = from; at === undefined && index < messages.length; index += 1) {
      try {
        messages[index];
      } catch {
        at = index;
      }
    }
    throw new ValidationError(
      what,
      [
        {
          path: at === undefined ? [] : [at],
          message: UNREADABLE,
        },
      ],
      { cause: error },
    );
  }
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
  // Told apart before anything reads them: an array whose proxy's traps throw is named.
  if (arrayLength(input, names.what) === undefined) {
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
