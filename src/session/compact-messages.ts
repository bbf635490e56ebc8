import { conversationChanged } from "../core/compactor.js";
import { validatedEstimate } from "../core/entry-validation.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
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
  /** Converts the caller's messages to ours (throwing a `ValidationError` on malformed ones). */
  from: (input: readonly T[]) => Message[];
  /** Converts ours back. */
  to: (messages: readonly Message[]) => T[];
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
  // Checked before anything reads it (a stateless handler's body may be anything).
  if (!Array.isArray(input)) {
    throw new ValidationError(format.what, [{ path: [], message: "must be an array of messages" }]);
  }
  const parsed = parseOrThrow(COMPACT_MESSAGES_OPTIONS_SCHEMA, options, `${format.entry} options`);
  const stateless = new StatelessCompaction(parsed);
  const converted = format.from(input);
  const intake = stateless.intake(converted);
  // Unclamped, the intake's messages are the conversion's, whose array it remembered estimated.
  const taken = intake.clamped.length === 0 && !intake.repaired;
  const estimate = taken
    ? validatedEstimate(converted, format.what)
    : estimateTokens(intake.messages);
  const contextUsed = stateless.contextUsed(parsed.contextUsed, estimate);
  const outcome = await stateless.compact(taken ? converted : intake.messages, contextUsed, {
    signal: parsed.signal,
    estimate,
    records: intake.records,
    facts: intake.facts,
  });
  const { conversation, result, error } = outcome;
  const failure = error === undefined ? {} : { error };
  if (!conversationChanged(converted, conversation)) {
    return { messages: input as T[], compacted: false, result, contextUsed, ...failure };
  }
  return { messages: format.to(conversation), compacted: true, result, contextUsed, ...failure };
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
