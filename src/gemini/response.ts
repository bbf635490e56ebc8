import type { Content, GenerateContentResponse } from "@google/genai";
import { ValidationError } from "../core/errors.js";
import type { AssistantMessage, ContentBlock, Message, ToolUseBlock } from "../core/message.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import type { Usage } from "../core/usage.js";
import { isPlainObject } from "../internal/plain-object.js";
import { unreadableError } from "../internal/unreadable.js";
import { fromGeminiContents } from "./contents-in.js";
import { callsTheSdkRan } from "./ran-calls.js";
import { type GeminiUsageLike, usageFromGemini } from "./usage.js";

/** What {@link appendGeminiResponse} reads of a `generateContent` response: its first candidate, its usage, its id. */
export interface GeminiResponseLike {
  candidates?: readonly { content?: Content | null }[] | null;
  /**
   * What the SDK's automatic function calling sent and ran (`CallableTool`s, `mcpToTool`): the
   * request's contents, then each call it ran and the responses it got.
   */
  automaticFunctionCallingHistory?: readonly Content[] | null;
  usageMetadata?: GeminiUsageLike | GenerateContentResponse["usageMetadata"] | null;
  responseId?: string | null;
}

/**
 * The session's side of {@link appendGeminiResponse}: an `AgentSession` (or anything with its
 * methods; `messages` and `addToolResults` for a response of automatic function calling).
 */
export interface GeminiResponseTarget {
  addAssistant(content: ContentBlock[], options?: { id?: string }): AssistantMessage;
  recordUsage(usage: Usage): void;
  readonly messages?: readonly Message[];
  addToolResults?(results: ToolResultInput[]): Message;
}

/** The same for a `StoredSession`, whose methods return promises. */
export interface AsyncGeminiResponseTarget {
  addAssistant(content: ContentBlock[], options?: { id?: string }): Promise<AssistantMessage>;
  recordUsage(usage: Usage): Promise<void>;
  readonly messages?: readonly Message[];
  addToolResults?(results: ToolResultInput[]): Promise<Message>;
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

const SUBJECT = "Gemini response";

/** Whether `value` is an object that is not an array (the SDK's response is a class instance). */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `read()`, a `ValidationError` it throws re-issued about the response, each path moved by `move`. */
function within<T>(read: () => T, move: (path: (string | number)[]) => (string | number)[]): T {
  try {
    return read();
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new ValidationError(
      SUBJECT,
      error.issues.map((issue) => ({ ...issue, path: move(issue.path) })),
      error.cause === undefined ? {} : { cause: error.cause },
    );
  }
}

/**
 * The content of a response's first candidate; `undefined` when there is none (a blocked
 * prompt's response: no `candidates`, a `promptFeedback`) or it has none (a candidate stopped
 * for safety). Only the first candidate is read, so only it is checked.
 */
function candidateContent(response: unknown): Content | undefined {
  const fail = (path: (string | number)[], message: string): never => {
    throw new ValidationError(SUBJECT, [{ path, message }]);
  };
  if (!isObject(response)) return fail([], "must be a generateContent response");
  const { candidates } = response;
  if (candidates == null) {
    // Gemini's own fields: a response without candidates still carries one of them.
    if (isObject(response["promptFeedback"]) || isObject(response["usageMetadata"]))
      return undefined;
    return fail(
      ["candidates"],
      "must be an array of candidates (a response without any has promptFeedback or usageMetadata)",
    );
  }
  if (!Array.isArray(candidates)) return fail(["candidates"], "must be an array of candidates");
  if (candidates.length === 0) return undefined;
  const first: unknown = candidates[0];
  if (!isObject(first)) return fail(["candidates", 0], "must be a candidate object");
  const { content } = first;
  if (content == null) return undefined;
  if (!isPlainObject(content))
    return fail(["candidates", 0, "content"], "must be a Content object");
  const { parts } = content;
  if (parts != null && !Array.isArray(parts))
    return fail(["candidates", 0, "content", "parts"], "must be an array of parts");
  return content as Content;
}

/** What {@link appendGeminiResponse} reads of a response, checked, before it applies any. */
type ReadResponse = ReturnType<typeof readResponse>;

/**
 * Reads and checks a response, as {@link appendGeminiResponse} takes it: whole or not at all.
 * The calls the SDK ran are read with the reply, so each response meets its call's id.
 */
function readResponse(
  session: GeminiResponseTarget | AsyncGeminiResponseTarget,
  response: GeminiResponseLike,
) {
  const content = candidateContent(response);
  const parts = content?.parts;
  const ran = callsTheSdkRan(session, response.automaticFunctionCallingHistory);
  const final =
    content === undefined || !Array.isArray(parts) || parts.length === 0
      ? undefined
      : { ...content, role: "model" };
  const contents = final === undefined ? ran : [...ran, final];
  const read =
    contents.length === 0
      ? []
      : within(
          () => fromGeminiContents(contents),
          // A content's path in the list it was read from, as its path in the response.
          (path) =>
            (path[0] as number) < ran.length
              ? ["automaticFunctionCallingHistory", ...path]
              : ["candidates", 0, "content", ...path.slice(1)],
        );
  const usage = within(
    () => usageFromGemini(response.usageMetadata as GeminiUsageLike | null | undefined),
    (path) => ["usageMetadata", ...path],
  );
  const id = response.responseId;
  const options = typeof id === "string" && id !== "" ? { id } : {};
  return { final, read, usage, options };
}

/**
 * Takes a whole `generateContent` response into a session in one call: its first candidate's
 * parts (thoughts with their signatures, text, function calls with theirs, in order) become one
 * assistant message named by the response's `responseId` (so the same response appended twice is
 * refused), and its `usageMetadata` (`cachedContentTokenCount` and `thoughtsTokenCount`
 * included) the context measure. Works with a `StoredSession` too (then it returns a promise).
 * The calls the SDK's automatic function calling ran (`CallableTool`s, `mcpToTool`) come first:
 * each call and its responses, from its `automaticFunctionCallingHistory` past the session's
 * messages, as the SDK's own `Chat` keeps them (the request built from
 * `toGeminiContents(session.messages)`).
 * Everything is checked before anything is appended or recorded. A response without a
 * candidate to read appends nothing and still records its usage: a blocked prompt's (no
 * `candidates`, a `promptFeedback`), or a candidate without content (stopped for safety).
 *
 * @example
 * const response = await ai.models.generateContent({ model, contents: toGeminiContents(session.messages), config });
 * const { toolUses } = appendGeminiResponse(session, response);
 * @throws {ValidationError} naming the field when the response is not a `generateContent`
 * response (`candidates` an array, its first an object whose `content` holds a `parts` array;
 * without `candidates`, a `promptFeedback` or `usageMetadata`: another API's response is
 * refused), or a part or the usage is malformed, or a getter (or proxy's trap) of it threw.
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
  let taken: ReadResponse;
  try {
    taken = readResponse(session, response);
  } catch (error) {
    // A getter (or a proxy's trap) of the response that throws is bad input, named.
    throw unreadableError(SUBJECT, response, error);
  }
  const { final, read, usage, options } = taken;
  // In order: each call the SDK ran and its responses, then the reply (named by the response).
  const steps = read.map((message, index) => {
    if (message.role === "user") return () => session.addToolResults!(message.content as never);
    const named = final !== undefined && index === read.length - 1;
    return () => session.addAssistant(message.content, named ? options : {});
  });
  const report = (last: Message | undefined): AppendedGeminiResponse => {
    const message = final === undefined ? undefined : (last as AssistantMessage);
    return {
      message,
      usage,
      toolUses: (message?.content ?? []).filter(
        (block): block is ToolUseBlock => block.type === "tool_use",
      ),
    };
  };
  let last: Message | undefined;
  for (let index = 0; index < steps.length; index += 1) {
    const added = steps[index]!();
    if (added instanceof Promise)
      return (async () => {
        let message = await added;
        for (const step of steps.slice(index + 1)) message = await step();
        if (usage !== undefined) await session.recordUsage(usage);
        return report(message);
      })();
    last = added;
  }
  const recorded = usage === undefined ? undefined : session.recordUsage(usage);
  if (recorded instanceof Promise) return recorded.then(() => report(last));
  return report(last);
}
