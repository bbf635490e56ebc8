import * as z from "zod/mini";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { isValidDate } from "../core/message-fast-check.js";
import {
  CLOCK_SCHEMA,
  functionSchema,
  NON_EMPTY_STRING_SCHEMA,
  optionsSchema,
  POSITIVE_INT_SCHEMA,
} from "../core/option-schemas.js";

/** The options every provider converter takes (`fromAnthropicMessages`, `fromModelMessages`, …). */
export interface ConversionOptions {
  sessionId?: string;
  firstTurnNumber?: number;
  clock?: Clock;
  generateId?: () => string;
}

const FIELDS = {
  sessionId: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
  firstTurnNumber: z.exactOptional(POSITIVE_INT_SCHEMA),
  clock: z.exactOptional(CLOCK_SCHEMA),
  generateId: z.exactOptional(functionSchema<() => string>()),
};

const WITH_ID = optionsSchema(FIELDS);
const { generateId: _generateId, ...withoutId } = FIELDS;
const WITHOUT_ID = optionsSchema(withoutId);

/**
 * Checks the options a provider converter takes (`{ sessionId?, firstTurnNumber?, clock?,
 * generateId? }`; `generateId` only where the converter takes it) and returns them parsed.
 * @throws {ValidationError} about `subject`, naming each bad option.
 */
export function checkConversionOptions(
  options: unknown,
  subject: string,
  takes: { generateId: boolean } = { generateId: false },
): ConversionOptions {
  return parseOrThrow(takes.generateId ? WITH_ID : WITHOUT_ID, options, subject);
}

/**
 * Checks what a converter's options gave the messages it just built: each `createdAt` from its
 * `clock` must be a `Date` holding a time (the clock's result is otherwise never looked at, and
 * a message dated `"notadate"` would pass for checked), and the turns counted from
 * `firstTurnNumber` must stay whole numbers (up to 2^53 - 1; they count up, so the last tells).
 * Returns `messages`, for the converter's return line.
 * @throws {ValidationError} about `subject` (the converter's options), naming `clock` or
 * `firstTurnNumber`.
 */
export function checkMadeByOptions<M extends readonly Message[]>(messages: M, subject: string): M {
  const lastTurn = messages.at(-1)?.turnId.number ?? 0;
  if (!Number.isSafeInteger(lastTurn)) {
    throw new ValidationError(subject, [
      {
        path: ["firstTurnNumber"],
        message: `must leave room for the messages' turns (the last would be ${lastTurn}, past 2^53 - 1)`,
      },
    ]);
  }
  // A conversion reads its clock once: most messages share one date, checked once.
  let checked: unknown;
  for (let index = 0; index < messages.length; index += 1) {
    const { createdAt } = messages[index]!;
    if (createdAt === checked) continue;
    if (!isValidDate(createdAt)) {
      throw new ValidationError(subject, [
        { path: ["clock"], message: `must return a valid Date, not ${describe(createdAt)}` },
      ]);
    }
    checked = createdAt;
  }
  return messages;
}

/**
 * `generateId` made to answer for its ids: each a non-empty string no earlier call of the
 * conversion gave (a call's id that repeats or is empty would pair its result with the wrong
 * call); `undefined` when there is none, for the converter's own.
 * @throws {ValidationError} from the id maker, about `subject`, naming `generateId`.
 */
export function checkedGenerateId(
  generateId: (() => string) | undefined,
  subject: string,
): (() => string) | undefined {
  if (generateId === undefined) return undefined;
  const given = new Set<string>();
  return () => {
    const id: unknown = generateId();
    if (typeof id !== "string" || id === "" || given.has(id)) {
      const found = typeof id === "string" && id !== "" ? `"${id}" again` : describe(id);
      throw new ValidationError(subject, [
        {
          path: ["generateId"],
          message: `must return a non-empty string, a new one each call, not ${found}`,
        },
      ]);
    }
    given.add(id);
    return id;
  };
}

/** What a bad result was, for the message. */
function describe(value: unknown): string {
  if (value instanceof Date) return "an Invalid Date";
  if (typeof value === "string") return value === "" ? "an empty string" : `the string "${value}"`;
  if (value === null || value === undefined) return String(value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
