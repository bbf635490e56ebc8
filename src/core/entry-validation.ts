import * as z from "zod";
import { LazilyCompiled } from "../internal/compiled-schema.js";
import { isAbortSignal } from "./abort.js";
import { parseOrThrow, ValidationError } from "./errors.js";
import { exchangeIssues } from "./exchanges.js";
import type { Message } from "./message.js";
import {
  exchangesKnownWhole,
  knownMessages,
  rememberExchangesWhole,
  rememberValid,
} from "./message-memo.js";
import { MessageSchema, MessagesSchema } from "./schemas.js";

const messageSchema = new LazilyCompiled(MessageSchema);
const messagesSchema = new LazilyCompiled(MessagesSchema);

/**
 * Whether the messages at `indexes` of `conversation` are well formed and their ids differ from
 * every other message's: what a conversation of otherwise validated messages still needs.
 */
function newMessagesValid(conversation: readonly unknown[], indexes: readonly number[]): boolean {
  const ids = new Set<string>();
  for (const index of indexes) {
    const value = conversation[index];
    if (!messageSchema.for(value).validate(value)) return false;
    const id = (value as Message).id;
    if (ids.has(id)) return false;
    ids.add(id);
  }
  let matches = 0;
  for (const message of conversation) if (ids.has((message as Message).id)) matches += 1;
  return matches === ids.size;
}

/**
 * Throws a `ValidationError` about `subject` unless `value` is an array of well-formed messages
 * with unique ids; returns the conversation's token estimate. Messages are immutable, so each
 * message object is checked by the schema once: a conversation validated before, or grown
 * since by new messages, costs a comparison or a lookup per message, and a schema check of
 * the new ones only (see {@link knownMessages}).
 */
export function validatedEstimate(value: unknown, subject: string): number {
  if (Array.isArray(value)) {
    const { tokens, unknown } = knownMessages(value);
    if (unknown.length === 0) return tokens;
    if (unknown.length < value.length && newMessagesValid(value, unknown)) {
      rememberValid(unknown.map((index) => value[index] as Message));
      // Now all known: unless a message object stands twice, which the schema check names.
      const again = knownMessages(value);
      if (again.unknown.length === 0) return again.tokens;
    }
  }
  // The issues, or valid after all: an optional field set to `undefined` counts as absent.
  const schema = messagesSchema.for(value);
  if (!schema.validate(value)) parseOrThrow(schema, value, subject);
  rememberValid(value as Message[]);
  return knownMessages(value as Message[]).tokens;
}

/** Throws a `ValidationError` about `subject` unless `value` is valid messages (see {@link validatedEstimate}). */
export function assertMessages(value: unknown, subject: string): asserts value is Message[] {
  validatedEstimate(value, subject);
}

const CompactOptionsSchema = z.object(
  {
    signal: z.custom<AbortSignal>(isAbortSignal, "must be an AbortSignal").exactOptional(),
    instructions: z.string({ error: "must be a string" }).exactOptional(),
    runId: z.string({ error: "must be a string" }).exactOptional(),
    contextLimit: z
      .number({ error: "must be a number" })
      .refine((value) => Number.isFinite(value) && value > 0, "must be a finite number above 0")
      .exactOptional(),
    contextUsed: z
      .number({ error: "must be a number" })
      .refine((value) => Number.isFinite(value) && value >= 0, "must be a finite number, 0 or more")
      .exactOptional(),
    trigger: z.enum(["auto", "manual"], { error: 'must be "auto" or "manual"' }).exactOptional(),
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
  const tokens = validatedEstimate(conversation, "conversation");
  // A tool exchange broken in the input (a result answering nothing, a call left unanswered
  // before other messages) is refused as a session refuses it: no compaction can repair it.
  // The same array checked before, unchanged since, is not walked again.
  if (!exchangesKnownWhole(conversation as Message[])) {
    const exchanges = exchangeIssues(conversation as Message[]);
    if (exchanges.length > 0) throw new ValidationError("conversation", exchanges);
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
