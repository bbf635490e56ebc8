import * as z from "zod/mini";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { REPORT_EVENTS } from "../core/reported-events.js";
import { JsonObjectSchema } from "../core/schemas.js";
import type { ReportedEvent } from "../session/events.js";

const JSON_OBJECTS = z.array(JsonObjectSchema);

/** A session that takes the events a response reported (`AgentSession`, `StoredSession`). */
export interface ReportingSession {
  [REPORT_EVENTS]?: (event: ReportedEvent) => void;
}

/** What a response reported, as the API wrote it (not checked yet); each empty when it reported nothing. */
export interface ResponseReport {
  inputTransformations: readonly unknown[];
  appliedEdits: readonly unknown[];
  /** `undefined`: the request sent no `diagnostics`; `null`: the cache did not miss. */
  cacheMissReason: unknown;
}

/** `value` parsed by `schema`; a `ValidationError` about the response, each path under `path`. */
function checked<T>(schema: z.ZodMiniType<T>, value: unknown, path: string[]): T {
  try {
    return parseOrThrow(schema, value, "Anthropic response");
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new ValidationError(
      "Anthropic response",
      error.issues.map((issue) => ({ ...issue, path: [...path, ...issue.path] })),
    );
  }
}

/**
 * The events of what a response reported, in the order the API wrote them: its
 * `input_transformations` (when any), `applied_edits` (when any) and cache diagnosis (when the
 * request asked for one), each checked as JSON and copied. Worked out before anything of the
 * response is applied, so a malformed one leaves the session as it was. A session without the
 * hook gets none, and nothing is checked for it.
 * @throws {ValidationError} naming the field (`input_transformations.0`, …) when one is not JSON.
 */
export function responseEvents(session: ReportingSession, report: ResponseReport): ReportedEvent[] {
  if (session[REPORT_EVENTS] === undefined) return [];
  const events: ReportedEvent[] = [];
  if (report.inputTransformations.length > 0) {
    const transformations = checked(JSON_OBJECTS, report.inputTransformations, [
      "input_transformations",
    ]);
    events.push({ type: "input_transformations", transformations });
  }
  if (report.appliedEdits.length > 0) {
    const edits = checked(JSON_OBJECTS, report.appliedEdits, [
      "context_management",
      "applied_edits",
    ]);
    const clearedInputTokens = edits.reduce(
      (sum, edit) =>
        sum + (typeof edit["cleared_input_tokens"] === "number" ? edit["cleared_input_tokens"] : 0),
      0,
    );
    events.push({ type: "context_edits_applied", edits, clearedInputTokens });
  }
  if (report.cacheMissReason !== undefined) {
    const reason = checked(z.nullable(JsonObjectSchema), report.cacheMissReason, [
      "diagnostics",
      "cache_miss_reason",
    ]);
    events.push({ type: "cache_diagnosis", reason });
  }
  return events;
}

/** Hands a session the events {@link responseEvents} worked out, once the response is applied. */
export function emitEvents(session: ReportingSession, events: readonly ReportedEvent[]): void {
  const hook = session[REPORT_EVENTS];
  if (hook === undefined) return;
  for (const event of events) hook.call(session, event);
}
