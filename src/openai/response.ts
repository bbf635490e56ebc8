import type { Response } from "openai/resources/responses/responses";
import type { ContentBlock } from "../core/message.js";
import type { AgentSession, AssistantMessage, Usage } from "../index.js";
import { isPlainObject } from "../internal/plain-object.js";
import { fromResponsesInput } from "./responses-input.js";
import { usageFromOpenAI } from "./usage.js";

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

/**
 * Takes a whole `responses.create` response into a session in one call: its output items
 * (reasoning with its `encrypted_content`, messages, function calls, in order) become one
 * assistant message, and its usage (`cached_tokens` included) the context measure.
 *
 * @example
 * const response = await client.responses.create({ model, input: toResponsesInput(session.messages) });
 * appendOpenAIResponse(session, response);
 * @throws {ValidationError} naming the path of a malformed output item.
 */
export function appendOpenAIResponse(
  session: OpenAIResponseTarget,
  response: OpenAIResponseLike,
): AppendedOpenAIResponse {
  const output: unknown = isPlainObject(response) ? response.output : undefined;
  const items = Array.isArray(output) ? output : [];
  const content: ContentBlock[] = [];
  for (const message of fromResponsesInput(items)) content.push(...message.content);
  const message = content.length === 0 ? undefined : session.addAssistant(content);
  const usage = usageFromOpenAI(response.usage);
  if (usage !== undefined) session.recordUsage(usage);
  return { message, usage };
}
