import type { Response } from "openai/resources/responses/responses";
import * as z from "zod/mini";
import { parseOrThrow, ValidationError, type ValidationIssue } from "../core/errors.js";
import type { AgentSession, AssistantMessage, Usage } from "../index.js";
import { isPlainObject, without } from "../internal/plain-object.js";
import { withoutLoneReasoning } from "./lone-reasoning.js";
import { fromResponsesInput } from "./responses-input.js";
import { type OpenAIUsageLike, usageFromOpenAI } from "./usage.js";

/** What {@link appendOpenAIResponse} reads of a response: its output items and usage. */
export type OpenAIResponseLike = Pick<Response, "output"> & { usage?: Response["usage"] | null };

/** The session's side of {@link appendOpenAIResponse}: its public append and usage API. */
export type OpenAIResponseTarget = Pick<AgentSession, "addAssistant" | "recordUsage">;

/** What {@link appendOpenAIResponse} did. */
export interface AppendedOpenAIResponse {
  /** The assistant message appended; `undefined` when the response had no output. */
  message: AssistantMessage | undefined;
  /** The usage recorded; `undefined` when the response reported none. */
  usage: Usage | undefined;
}

const ResponseShapeSchema = z.looseObject(
  {
    // The caller's items themselves (a record schema copies each, and a copy by assignment
    // would turn a field named `__proto__` into the copy's prototype).
    output: z.array(
      z.custom<Record<string, unknown>>(isPlainObject, { error: "must be an output item object" }),
      { error: "must be an array of output items" },
    ),
    usage: z.optional(z.unknown()),
  },
  { error: "must be a Responses API response (with output)" },
);

/**
 * Refuses output items of the client's side, which a response's output can type but the model
 * never produces there (a tool call's output, a user's message): appended to the assistant
 * message they would answer calls of their own, the call's output would go out twice.
 */
function checkModelSide(output: readonly Record<string, unknown>[]): void {
  const issues: ValidationIssue[] = [];
  output.forEach((item, index) => {
    const { type, role } = item;
    if (typeof type === "string" && type.endsWith("_call_output"))
      issues.push({
        path: ["output", index, "type"],
        message: `must be an item the model makes, not ${type}`,
      });
    else if ((type === undefined || type === "message") && role !== "assistant")
      issues.push({ path: ["output", index, "role"], message: 'must be "assistant"' });
  });
  if (issues.length > 0) throw new ValidationError("OpenAI response", issues);
}

/**
 * An output item as the API wrote it: the SDK's `parse()` and `stream()` helpers add
 * `parsed_arguments` to a function call and `parsed` to each part of a message, fields the API
 * refuses in an input ("Unknown parameter: 'input[2].parsed_arguments'").
 */
function asWritten(item: Record<string, unknown>): Record<string, unknown> {
  if (Object.hasOwn(item, "parsed_arguments")) return without(item, ["parsed_arguments"]);
  const { content } = item;
  if (!Array.isArray(content)) return item;
  const parsed = (part: unknown) => isPlainObject(part) && Object.hasOwn(part, "parsed");
  if (!content.some(parsed)) return item;
  return {
    ...item,
    content: content.map((part) => (parsed(part) ? without(part, ["parsed"]) : part)),
  };
}

/** `read()`, a `ValidationError` it throws re-issued about the response, each path under `field`. */
function within<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new ValidationError(
      "OpenAI response",
      error.issues.map((issue) => ({ ...issue, path: [field, ...issue.path] })),
    );
  }
}

/**
 * Takes a whole `responses.create` response into a session in one call: its output items
 * (reasoning with its `encrypted_content`, messages, function calls, in order) become one
 * assistant message, and its usage (`cached_tokens` included) the context measure. A reasoning
 * item no item follows (an incomplete response's) is left out: the API refuses it alone in
 * the next input. The fields the SDK's `parse()` and `stream()` helpers add (`parsed`,
 * `parsed_arguments`) are left out, as the API refuses them in an input. Everything is checked
 * before anything is appended or recorded.
 *
 * @example
 * const response = await client.responses.create({ model, input: toResponsesInput(session.messages) });
 * appendOpenAIResponse(session, response);
 * @throws {ValidationError} naming the field when the response is not a Responses API response
 * (an `output` array of items, a usage of whole numbers ≥ 0) or an output item is malformed.
 */
export function appendOpenAIResponse(
  session: OpenAIResponseTarget,
  response: OpenAIResponseLike,
): AppendedOpenAIResponse {
  const parsed = parseOrThrow(ResponseShapeSchema, response, "OpenAI response");
  checkModelSide(parsed.output);
  const content = within("output", () =>
    fromResponsesInput(withoutLoneReasoning(parsed.output.map(asWritten))).flatMap(
      (message) => message.content,
    ),
  );
  const usage = within("usage", () =>
    usageFromOpenAI(parsed.usage as OpenAIUsageLike | null | undefined),
  );
  const message = content.length === 0 ? undefined : session.addAssistant(content);
  if (usage !== undefined) session.recordUsage(usage);
  return { message, usage };
}
