import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";
import type { AssistantMessage, ContentBlock, JsonObject } from "../core/message.js";
import type { AgentSession } from "../session/agent-session.js";
import type { Usage } from "../session/context-meter.js";
import { type AnthropicBlock, fromAnthropicContent } from "./blocks.js";
import { type AnthropicUsageLike, usageFromAnthropic } from "./usage.js";

/** What {@link appendAnthropicResponse} reads of a response: the SDK's `Message` (or a beta one). */
export interface AnthropicResponseLike {
  content: readonly AnthropicBlock[] | readonly unknown[];
  usage?: AnthropicUsageLike | null;
  /** What the API changed in the request before the model read it (beta responses). */
  input_transformations?: readonly unknown[] | null;
}

/** What {@link appendAnthropicResponse} did. */
export interface AppendedResponse {
  /** The assistant message appended; `undefined` when the response had no content. */
  message: AssistantMessage | undefined;
  /** The usage recorded; `undefined` when the response reported none. */
  usage: Usage | undefined;
}

const ResponseShapeSchema = z.looseObject(
  {
    content: z.array(z.unknown(), { error: "must be an array of content blocks" }),
    usage: z.unknown().optional(),
    input_transformations: z
      .array(z.record(z.string(), z.unknown()), {
        error: "must be an array of objects",
      })
      .nullish(),
  },
  { error: "must be a response message (with content)" },
);

/** The session's side of {@link appendAnthropicResponse}: its public append and usage API. */
export type ResponseTarget = Pick<AgentSession, "addAssistant" | "recordUsage"> &
  Partial<Pick<AgentSession, "recordInputTransformations">>;

/**
 * Takes a whole `messages.create` response into a session in one call: appends its content
 * as an assistant message in the current turn (blocks converted losslessly, so thinking
 * signatures and server-tool blocks go back to the API unchanged), then records its usage,
 * which, recorded after the reply, counts input + cache + output tokens. A response with no
 * content appends nothing (an empty message is invalid) but its usage is still recorded.
 * Its `input_transformations` (thinking the API dropped with `prefix_mismatch_behavior:
 * "drop_block"`, …), when there are any, reach the session's observers as an event.
 *
 * @example
 * const response = await client.messages.create({ model, max_tokens, messages });
 * appendAnthropicResponse(session, response);
 * @throws {ValidationError} when the response is malformed or no turn is open.
 */
export function appendAnthropicResponse(
  session: ResponseTarget,
  response: AnthropicResponseLike,
): AppendedResponse {
  const parsed = parseOrThrow(ResponseShapeSchema, response, "Anthropic response");
  const content: ContentBlock[] = fromAnthropicContent(parsed.content);
  const usage = usageFromAnthropic(parsed.usage as AnthropicUsageLike | null | undefined);
  const message = content.length > 0 ? session.addAssistant(content) : undefined;
  if (usage !== undefined) session.recordUsage(usage);
  const transformations = parsed.input_transformations ?? [];
  if (transformations.length > 0) {
    session.recordInputTransformations?.(transformations as JsonObject[]);
  }
  return { message, usage };
}
