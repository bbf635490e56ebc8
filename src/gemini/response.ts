import type { Content, GenerateContentResponse } from "@google/genai";
import { ValidationError } from "../core/errors.js";
import type { AssistantMessage, ContentBlock, ToolUseBlock } from "../core/message.js";
import type { Usage } from "../core/usage.js";
import { isPlainObject } from "../internal/plain-object.js";
import { fromGeminiContents } from "./contents-in.js";
import { type GeminiUsageLike, usageFromGemini } from "./usage.js";

/** What {@link appendGeminiResponse} reads of a `generateContent` response: its first candidate, its usage, its id. */
export interface GeminiResponseLike {
  candidates?: readonly { content?: Content | null }[] | null;
  usageMetadata?: GeminiUsageLike | GenerateContentResponse["usageMetadata"] | null;
  responseId?: string | null;
}

/** The session's side of {@link appendGeminiResponse}: an `AgentSession` (or anything with its two methods). */
export interface GeminiResponseTarget {
  addAssistant(content: ContentBlock[], options?: { id?: string }): AssistantMessage;
  recordUsage(usage: Usage): void;
}

/** The same for a `StoredSession`, whose methods return promises. */
export interface AsyncGeminiResponseTarget {
  addAssistant(content: ContentBlock[], options?: { id?: string }): Promise<AssistantMessage>;
  recordUsage(usage: Usage): Promise<void>;
}

/** What {@link appendGeminiResponse} did. */
export interface AppendedGeminiResponse {
  /** The assistant message appended; `undefined` when the candidate had no parts. */
  message: AssistantMessage | undefined;
  /** The usage recorded; `undefined` when the response reported none. */
  usage: Usage | undefined;
  /**
   * The function calls to answer, as tool uses: run them and pass one result per `id` to
   * `addToolResults` (a call the API sent without an id has one made up here).
   */
  toolUses: ToolUseBlock[];
}

function candidateContent(response: GeminiResponseLike): Content | undefined {
  if (typeof response !== "object" || response === null) {
    throw new ValidationError("Gemini response", [
      { path: [], message: "must be a generateContent response" },
    ]);
  }
  const candidates: unknown = response.candidates;
  if (candidates === undefined || candidates === null) return undefined;
  if (!Array.isArray(candidates)) {
    throw new ValidationError("Gemini response", [
      { path: ["candidates"], message: "must be an array" },
    ]);
  }
  const content: unknown = (candidates[0] as { content?: unknown } | undefined)?.content;
  return isPlainObject(content) ? (content as Content) : undefined;
}

/**
 * Takes a whole `generateContent` response into a session in one call: its first candidate's
 * parts (thoughts with their signatures, text, function calls with theirs, in order) become one
 * assistant message named by the response's `responseId` (so the same response appended twice is
 * refused), and its `usageMetadata` (`cachedContentTokenCount` and `thoughtsTokenCount`
 * included) the context measure. Works with a `StoredSession` too (then it returns a promise).
 *
 * @example
 * const response = await ai.models.generateContent({ model, contents: toGeminiContents(session.messages), config });
 * const { toolUses } = appendGeminiResponse(session, response);
 * @throws {ValidationError} naming the path of a malformed part.
 */
export function appendGeminiResponse(
  session: GeminiResponseTarget,
  response: GeminiResponseLike,
): AppendedGeminiResponse;
export function appendGeminiResponse(
  session: AsyncGeminiResponseTarget,
  response: GeminiResponseLike,
): Promise<AppendedGeminiResponse>;
export function appendGeminiResponse(
  session: GeminiResponseTarget | AsyncGeminiResponseTarget,
  response: GeminiResponseLike,
): AppendedGeminiResponse | Promise<AppendedGeminiResponse> {
  const content = candidateContent(response);
  const parts = content?.parts;
  const blocks =
    content === undefined || !Array.isArray(parts) || parts.length === 0
      ? []
      : (fromGeminiContents([{ ...content, role: "model" }])[0]?.content ?? []);
  const usage = usageFromGemini(response.usageMetadata as GeminiUsageLike | null | undefined);
  const id = response.responseId;
  const options = typeof id === "string" && id !== "" ? { id } : {};
  const added = blocks.length > 0 ? session.addAssistant(blocks, options) : undefined;
  const report = (message: AssistantMessage | undefined): AppendedGeminiResponse => ({
    message,
    usage,
    toolUses: (message?.content ?? []).filter(
      (block): block is ToolUseBlock => block.type === "tool_use",
    ),
  });
  if (added instanceof Promise) {
    return added.then(async (message) => {
      if (usage !== undefined) await session.recordUsage(usage);
      return report(message);
    });
  }
  const recorded = usage === undefined ? undefined : session.recordUsage(usage);
  if (recorded instanceof Promise) return recorded.then(() => report(added));
  return report(added);
}
