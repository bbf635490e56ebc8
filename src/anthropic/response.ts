import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import type { AssistantMessage, ContentBlock } from "../core/message.js";
import { NON_NEGATIVE_INT_SCHEMA, STRING_SCHEMA } from "../core/option-schemas.js";
import type { Usage } from "../core/usage.js";
import { unreadableError } from "../internal/unreadable.js";
import { type AnthropicBlock, fromAnthropicContent } from "./blocks.js";
import { emitEvents, type ReportingSession, responseEvents } from "./response-events.js";
import { type AnthropicUsageLike, usageFromAnthropic } from "./usage.js";

/** What {@link appendAnthropicResponse} reads of a response: the SDK's `Message` (or a beta one). */
export interface AnthropicResponseLike {
  content: readonly AnthropicBlock[] | readonly unknown[];
  usage?: AnthropicUsageLike | null;
  /** What the API changed in the request before the model read it (beta responses). */
  input_transformations?: readonly unknown[] | null;
  /** What server-side context editing cleared (beta `context-management-2025-06-27`). */
  context_management?: { applied_edits?: readonly unknown[] | null } | null;
  /** Why the prompt cache missed, when the request sent `diagnostics.previous_message_id`. */
  diagnostics?: { cache_miss_reason?: unknown } | null;
}

/** One edit server-side context editing applied to the request (`context_management.applied_edits`). */
export interface AppliedContextEdit {
  /** The edit: `clear_tool_uses_20250919`, `clear_thinking_20251015`, or one not known yet. */
  type: string;
  /** Input tokens it cleared: the model read that many fewer than the conversation holds. */
  clearedInputTokens: number;
  /** Tool uses it cleared (`clear_tool_uses_20250919`). */
  clearedToolUses?: number;
  /** Assistant turns whose thinking it cleared (`clear_thinking_20251015`). */
  clearedThinkingTurns?: number;
}

/**
 * Why the prompt cache could not reuse the previous request's prefix (the response's
 * `diagnostics.cache_miss_reason`): `model_changed`, `system_changed`, `tools_changed`,
 * `messages_changed` (history edited rather than appended to, as a compaction does),
 * `previous_message_not_found`, `unavailable`, or one not known yet.
 */
export interface CacheMissReason {
  type: string;
  /** About how many input tokens would have been read from the cache had the prefix matched. */
  cacheMissedInputTokens?: number;
}

/** What {@link appendAnthropicResponse} did. */
export interface AppendedResponse {
  /** The assistant message appended; `undefined` when the response had no content. */
  message: AssistantMessage | undefined;
  /** The usage recorded; `undefined` when the response reported none. */
  usage: Usage | undefined;
  /**
   * What server-side context editing cleared, when the request sent `context_management`
   * (`[]` when nothing); the recorded usage already counts the edited prompt.
   */
  appliedEdits?: AppliedContextEdit[];
  /**
   * The cache diagnosis, when the request sent `diagnostics`: a reason when the prefix of the
   * request it named was not reused, `null` when it was (or a first turn, or still pending).
   */
  cacheMissReason?: CacheMissReason | null;
}

const count = NON_NEGATIVE_INT_SCHEMA;

const AppliedEditSchema = z.looseObject({
  type: STRING_SCHEMA,
  cleared_input_tokens: z.nullish(count),
  cleared_tool_uses: z.nullish(count),
  cleared_thinking_turns: z.nullish(count),
});

const CacheMissReasonSchema = z.looseObject({
  type: STRING_SCHEMA,
  cache_missed_input_tokens: z.nullish(count),
});

const ResponseShapeSchema = z.looseObject(
  {
    id: z.optional(z.unknown()),
    content: z.array(z.unknown(), { error: "must be an array of content blocks" }),
    usage: z.optional(z.unknown()),
    input_transformations: z.nullish(
      z.array(z.record(z.string(), z.unknown()), {
        error: "must be an array of objects",
      }),
    ),
    context_management: z.nullish(
      z.looseObject({ applied_edits: z.nullish(z.array(AppliedEditSchema)) }),
    ),
    diagnostics: z.nullish(z.looseObject({ cache_miss_reason: z.nullish(CacheMissReasonSchema) })),
  },
  { error: "must be a response message (with content)" },
);

/**
 * The session's side of {@link appendAnthropicResponse}: its public append and usage API, and
 * (a library session has it) the hook that takes the events of the API's input
 * transformations, context edits and cache diagnosis for its observers.
 */
export interface ResponseTarget extends ReportingSession {
  addAssistant(content: ContentBlock[], options?: { id?: string }): AssistantMessage;
  recordUsage(usage: Usage): void;
}

/**
 * The side of a store-backed session (`openSession`) that {@link appendAnthropicResponse}
 * uses: the same methods, each resolving once what it wrote is stored.
 */
export interface AsyncResponseTarget extends ReportingSession {
  addAssistant(content: ContentBlock[], options?: { id?: string }): Promise<AssistantMessage>;
  recordUsage(usage: Usage): Promise<void>;
}

/**
 * Takes a whole `messages.create` response into a session in one call: appends its content
 * as an assistant message in the current turn (blocks converted losslessly, so thinking
 * signatures and server-tool blocks go back to the API unchanged), then records its usage,
 * which, recorded after the reply, counts input + cache + output tokens. A response with no
 * content appends nothing (an empty message is invalid) but its usage is still recorded.
 * Its `input_transformations` (thinking the API dropped with `prefix_mismatch_behavior:
 * "drop_block"`, …), when there are any, reach the session's observers as an event. Its
 * `context_management.applied_edits` (server-side clearing) come back as `appliedEdits` (the
 * usage recorded already counts the edited prompt, so the context measure follows), and its
 * `diagnostics.cache_miss_reason` as `cacheMissReason`; the session's observers get both as
 * events too (`context_edits_applied`, `cache_diagnosis`). Everything is checked before anything
 * is appended or recorded, so a malformed response leaves the session as it was.
 *
 * @example
 * const response = await client.messages.create({ model, max_tokens, messages });
 * appendAnthropicResponse(session, response);
 * @throws {ValidationError} naming the field when the response is malformed (its content, its
 * usage, or, for a session that takes their events, an `input_transformations`, `applied_edits`
 * or `cache_miss_reason` entry that is not JSON) or a getter (or proxy's trap) of it threw, or
 * when no turn is open.
 */
export function appendAnthropicResponse(
  session: ResponseTarget,
  response: AnthropicResponseLike,
): AppendedResponse;
/** A store-backed session (`openSession`): the same, resolving once the reply is stored. */
export function appendAnthropicResponse(
  session: AsyncResponseTarget,
  response: AnthropicResponseLike,
): Promise<AppendedResponse>;
export function appendAnthropicResponse(
  session: ResponseTarget | AsyncResponseTarget,
  response: AnthropicResponseLike,
): AppendedResponse | Promise<AppendedResponse> {
  let read: ReadResponse;
  try {
    read = readResponse(session, response);
  } catch (error) {
    // A getter (or a proxy's trap) of the response that throws is bad input, named.
    throw unreadableError("Anthropic response", response, error);
  }
  const { parsed, content, usage, edits, reason, events } = read;
  const report = (message: AssistantMessage | undefined): AppendedResponse => {
    const appended: AppendedResponse = { message, usage };
    if (parsed.context_management != null) appended.appliedEdits = (edits ?? []).map(appliedEdit);
    if (reason !== undefined) appended.cacheMissReason = reason && cacheMissReason(reason);
    emitEvents(session, events);
    return appended;
  };
  // The response's id names the message: the same response appended twice is refused.
  const options = typeof parsed.id === "string" && parsed.id !== "" ? { id: parsed.id } : {};
  const added = content.length > 0 ? session.addAssistant(content, options) : undefined;
  if (isPromise(added)) {
    return added.then(async (message) => {
      if (usage !== undefined) await session.recordUsage(usage);
      return report(message);
    });
  }
  const recorded = usage === undefined ? undefined : session.recordUsage(usage);
  if (isPromise(recorded)) return recorded.then(() => report(added));
  return report(added);
}

/** What {@link appendAnthropicResponse} reads of a response, checked, before it applies any. */
type ReadResponse = ReturnType<typeof readResponse>;

/** Reads and checks a response, as {@link appendAnthropicResponse} takes it: whole or not at all. */
function readResponse(session: ResponseTarget | AsyncResponseTarget, response: unknown) {
  const parsed = parseOrThrow(ResponseShapeSchema, response, "Anthropic response");
  const content: ContentBlock[] = fromAnthropicContent(parsed.content);
  const usage = usageFromAnthropic(parsed.usage as AnthropicUsageLike | null | undefined);
  const edits = parsed.context_management?.applied_edits;
  const reason =
    parsed.diagnostics === undefined ? undefined : (parsed.diagnostics?.cache_miss_reason ?? null);
  const events = responseEvents(session, {
    inputTransformations: parsed.input_transformations ?? [],
    appliedEdits: edits ?? [],
    cacheMissReason: reason,
  });
  return { parsed, content, usage, edits, reason, events };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === "function";
}

function appliedEdit(edit: z.infer<typeof AppliedEditSchema>): AppliedContextEdit {
  const out: AppliedContextEdit = {
    type: edit.type,
    clearedInputTokens: edit.cleared_input_tokens ?? 0,
  };
  if (edit.cleared_tool_uses != null) out.clearedToolUses = edit.cleared_tool_uses;
  if (edit.cleared_thinking_turns != null) out.clearedThinkingTurns = edit.cleared_thinking_turns;
  return out;
}

function cacheMissReason(reason: z.infer<typeof CacheMissReasonSchema>): CacheMissReason {
  return reason.cache_missed_input_tokens == null
    ? { type: reason.type }
    : { type: reason.type, cacheMissedInputTokens: reason.cache_missed_input_tokens };
}
