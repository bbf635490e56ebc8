import { z } from "zod";
import { isAbortSignal } from "./abort.js";
import { parseOrThrow, ValidationError } from "./errors.js";
import type { Message } from "./message.js";
import { MessagesSchema } from "./schemas.js";

/** Message objects already validated, each with the last check that saw it. */
const knownValid = new WeakMap<object, number>();
let checks = 0;

/**
 * How many leading elements are message objects validated before, none of them twice (all of
 * them: `values.length`). Ids were checked unique when the messages were validated together;
 * compaction itself never relies on message ids, so this O(n) identity check (no id hashing) is
 * all a repeat check needs.
 */
function knownAndDistinctPrefix(values: readonly unknown[]): number {
  checks += 1;
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    if (typeof value !== "object" || value === null) return index;
    const seen = knownValid.get(value);
    if (seen === undefined || seen === checks) return index;
    knownValid.set(value, checks);
  }
  return values.length;
}

/**
 * Throws a `ValidationError` about `subject` unless `value` is an array of well-formed messages
 * with unique ids. Messages are immutable, so each message object is checked by the schema
 * once; a conversation of messages seen before (the same objects, none twice) costs one
 * lookup per message.
 */
export function assertMessages(value: unknown, subject: string): asserts value is Message[] {
  if (Array.isArray(value) && knownAndDistinctPrefix(value) === value.length) return;
  parseOrThrow(MessagesSchema, value, subject);
  for (const message of value as Message[]) knownValid.set(message, 0);
}

/** Remembers messages validated where they entered (the session's `append`), so no later check repeats it. */
export function markValidated(messages: readonly Message[]): void {
  for (const message of messages) knownValid.set(message, 0);
}

const CompactOptionsSchema = z.object(
  {
    signal: z.custom<AbortSignal>(isAbortSignal, "must be an AbortSignal").exactOptional(),
    instructions: z.string({ error: "must be a string" }).exactOptional(),
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
 * unique ids), the summaries (a `Map`) and the options or context, if any.
 * @throws {ValidationError} naming the offending argument and path.
 */
export function assertCompactArguments(
  conversation: unknown,
  summaries: unknown,
  options?: unknown,
): void {
  assertMessages(conversation, "conversation");
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
}
