import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import type { JsonObject } from "../core/message.js";
import { REPORT_EVENTS } from "../core/reported-events.js";
import { JsonObjectSchema } from "../core/schemas.js";
import type { ReportedEvent } from "../session/events.js";

const JSON_OBJECTS = z.array(JsonObjectSchema);

/** A session that takes the events a response reported (`AgentSession`, `StoredSession`). */
export interface ReportingSession {
  [REPORT_EVENTS]?: (event: ReportedEvent) => void;
}

/** What a response reported, as the API wrote it; each field absent when it reported nothing. */
export interface ResponseReport {
  inputTransformations: readonly JsonObject[];
  appliedEdits: readonly JsonObject[];
  /** `undefined`: the request sent no `diagnostics`; `null`: the cache did not miss. */
  cacheMissReason: JsonObject | null | undefined;
}

/**
 * Hands a session the events of what a response reported, in the order the API wrote them: its
 * `input_transformations` (when any), `applied_edits` (when any) and cache diagnosis (when the
 * request asked for one). A session without the hook hears nothing and nothing is checked.
 * @throws {ValidationError} naming the field when one is not JSON.
 */
export function reportResponse(session: ReportingSession, report: ResponseReport): void {
  const hook = session[REPORT_EVENTS];
  if (hook === undefined) return;
  const emit = (event: ReportedEvent) => hook.call(session, event);
  if (report.inputTransformations.length > 0) {
    const transformations = parseOrThrow(
      JSON_OBJECTS,
      report.inputTransformations,
      "input_transformations",
    );
    emit({ type: "input_transformations", transformations });
  }
  if (report.appliedEdits.length > 0) {
    const edits = parseOrThrow(JSON_OBJECTS, report.appliedEdits, "applied_edits");
    const clearedInputTokens = edits.reduce(
      (sum, edit) =>
        sum + (typeof edit["cleared_input_tokens"] === "number" ? edit["cleared_input_tokens"] : 0),
      0,
    );
    emit({ type: "context_edits_applied", edits, clearedInputTokens });
  }
  if (report.cacheMissReason !== undefined) {
    const reason = parseOrThrow(
      z.nullable(JsonObjectSchema),
      report.cacheMissReason,
      "cache_miss_reason",
    );
    emit({ type: "cache_diagnosis", reason });
  }
}
