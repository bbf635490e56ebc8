import * as z from "zod/mini";
import { DistinctIds } from "../internal/unique-ids.js";
import { parseOrThrow, ValidationError } from "./errors.js";
import { ExchangeCheck, exchangeIssues, exchangesWhole } from "./exchanges.js";
import type { Message } from "./message.js";
import { fastMessageTokens } from "./message-fast-check.js";
import {
  knownMessages,
  rememberConversation,
  rememberExchangesWhole,
  rememberValid,
  seemsNew,
} from "./message-memo.js";
import {
  ABORT_SIGNAL_SCHEMA,
  finiteNumber,
  STRING_SCHEMA,
  TOKENS_SCHEMA,
} from "./option-schemas.js";
import { MessagesSchema } from "./schemas.js";

/**
 * What a first check of `conversation` (a stateless server's request) found when each message
 * is certainly well formed ({@link fastMessageTokens}) and their ids differ: its estimate, and
 * whether its tool exchanges are whole (`undefined`: not told here); `undefined` leaves it to
 * the schema. One pass: each message is followed through the exchanges while it is at hand.
 */
function firstSight(
  conversation: readonly unknown[],
): { tokens: number; exchangesWhole: boolean | undefined } | undefined {
  const exchanges = new ExchangeCheck();
  const ids = new DistinctIds(conversation as readonly Message[]);
  let exchangesWhole: boolean | undefined = true;
  let tokens = 0;
  const last = conversation.length - 1;
  for (let index = 0; index <= last; index += 1) {
    const value = conversation[index];
    const estimate = fastMessageTokens(value);
    if (estimate < 0 || !ids.add(index)) return undefined;
    tokens += estimate;
    if (exchangesWhole === true) exchangesWhole = exchanges.step(value as Message, index === last);
  }
  return { tokens, exchangesWhole };
}

/**
 * The token estimates of the messages at `indexes` of `conversation` (the others known valid)
 * when each is certainly well formed ({@link fastMessageTokens}) and their ids differ from
 * every other message's; `undefined` leaves them to the schema.
 */
function fastChecked(
  conversation: readonly unknown[],
  indexes: readonly number[],
): number[] | undefined {
  const tokens: number[] = new Array(indexes.length);
  const ids = new Set<string>();
  for (let position = 0; position < indexes.length; position += 1) {
    const value = conversation[indexes[position]!];
    const estimate = fastMessageTokens(value);
    if (estimate < 0) return undefined;
    ids.add((value as Message).id);
    tokens[position] = estimate;
  }
  if (ids.size !== indexes.length) return undefined;
  let matches = 0;
  for (const message of conversation) if (ids.has((message as Message).id)) matches += 1;
  return matches === ids.size ? tokens : undefined;
}

/**
 * Throws a `ValidationError` about `subject` unless `value` is an array of well-formed messages
 * with unique ids; returns the conversation's token estimate. Messages are immutable, so a
 * conversation validated before, or grown since by new messages, costs a comparison or a
 * lookup per message, and a check of the new ones only (see {@link knownMessages}). The check
 * is a hand-written fast path ({@link fastMessageTokens}); what it does not accept goes to the
 * schema, which decides and names the issues.
 */
export function validatedEstimate(value: unknown, subject: string): number {
  return checkedConversation(value, subject).tokens;
}

/**
 * {@link validatedEstimate}, and whether the conversation's tool exchanges are known whole
 * (checked by the same pass, or before on the same array): then they need no other walk.
 */
function checkedConversation(
  value: unknown,
  subject: string,
): { tokens: number; exchangesWhole: boolean } {
  if (Array.isArray(value)) {
    const known = seemsNew(value) ? undefined : knownMessages(value);
    if (known?.unknown.length === 0)
      return { tokens: known.tokens, exchangesWhole: known.exchangesWhole === true };
    if (known === undefined || known.unknown.length === value.length) {
      // Never seen (a stateless server's request): remembered as a whole.
      const seen = firstSight(value);
      if (seen !== undefined) {
        const exchangesWhole = seen.exchangesWhole === true;
        rememberConversation(value, seen.tokens, exchangesWhole);
        return { tokens: seen.tokens, exchangesWhole };
      }
    } else {
      const estimates = fastChecked(value, known.unknown);
      if (estimates !== undefined) {
        rememberValid(
          known.unknown.map((index) => value[index] as Message),
          estimates,
        );
        // Now all known: unless a message object stands twice, which the schema check names.
        const again = knownMessages(value);
        if (again.unknown.length === 0) return { tokens: again.tokens, exchangesWhole: false };
      }
    }
  }
  // The issues, or valid after all: an optional field set to `undefined` counts as absent. The
  // schema's runtime parser, not a compiled one: valid messages from JSON or the library take
  // the fast check above, so what comes here is rare, and `z.compile` stays out of a bundle.
  if (!z.validate(MessagesSchema, value)) parseOrThrow(MessagesSchema, value, subject);
  rememberValid(value as Message[]);
  return { tokens: knownMessages(value as Message[]).tokens, exchangesWhole: false };
}

/** Throws a `ValidationError` about `subject` unless `value` is valid messages (see {@link validatedEstimate}). */
export function assertMessages(value: unknown, subject: string): asserts value is Message[] {
  validatedEstimate(value, subject);
}

const CompactOptionsSchema = z.object(
  {
    signal: z.exactOptional(ABORT_SIGNAL_SCHEMA),
    instructions: z.exactOptional(STRING_SCHEMA),
    runId: z.exactOptional(STRING_SCHEMA),
    contextLimit: z.exactOptional(finiteNumber(0, true)),
    contextUsed: z.exactOptional(TOKENS_SCHEMA),
    trigger: z.exactOptional(z.enum(["auto", "manual"], { error: 'must be "auto" or "manual"' })),
    tokenRatio: z.exactOptional(finiteNumber(1)),
  },
  { error: "must be an object" },
);

/**
 * Validates what `compact`/`compactAsync` receive: the conversation (well-formed messages,
 * unique ids), the summaries (a `Map`) and the options or context, if any. Returns the
 * conversation's token estimate.
 * @throws {ValidationError} naming the offending argument and path.
 */
export function assertCompactArguments(
  conversation: unknown,
  summaries: unknown,
  options?: unknown,
): number {
  const { tokens, exchangesWhole: known } = checkedConversation(conversation, "conversation");
  // A tool exchange broken in the input (a result answering nothing, a call left unanswered
  // before other messages) is refused as a session refuses it: no compaction can repair it.
  // The same array checked before, unchanged since, is not walked again.
  if (!known) {
    if (exchangesWhole(conversation as Message[]) !== true) {
      const exchanges = exchangeIssues(conversation as Message[]);
      if (exchanges.length > 0) throw new ValidationError("conversation", exchanges);
    }
    rememberExchangesWhole(conversation as Message[]);
  }
  if (
    !(summaries instanceof Map) &&
    (typeof summaries !== "object" ||
      summaries === null ||
      typeof (summaries as { get?: unknown }).get !== "function")
  ) {
    throw new ValidationError("summaries", [
      { path: [], message: "must be a Map of tool use id to compact summary" },
    ]);
  }
  if (options !== undefined) parseOrThrow(CompactOptionsSchema, options, "compaction options");
  return tokens;
}
