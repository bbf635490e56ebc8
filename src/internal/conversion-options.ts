import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import type { Clock } from "../core/message-factory.js";
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
