import type {
  ChatCompletionDeveloperMessageParam,
  ChatCompletionMessageParam,
  ChatCompletionSystemMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import type { JsonObject, Message } from "../core/message.js";
import { copyJson } from "./chat-fields.js";
import { type ReasoningPolicy, toChatMessages } from "./chat-messages-out.js";

/**
 * What every request of the agent shares, so the summary requests of `ChatCompletionsLlmClient`
 * send the agent's prefix byte for byte: the model, the system (or developer) prompt sent
 * first, the tools, and what becomes of the host's reasoning fields.
 */
export interface ChatCompletionsRequestDescription {
  /** The model, e.g. `"gpt-5.6-luna"`, `"deepseek-v4-pro"`, `"qwen3-coder"`. */
  model: string;
  /** The first message: a string is sent as `{ role: "system", content }`. @default none */
  system?: string | ChatCompletionSystemMessageParam | ChatCompletionDeveloperMessageParam;
  /** The tools. @default none */
  tools?: ChatCompletionTool[];
  /** `toChatMessages`'s `reasoning` option (see there for each host's rule). @default "keep" */
  reasoning?: ReasoningPolicy;
}

const ObjectSchema = z.record(z.string(), z.unknown(), { error: "must be an object" });

/** Schema of {@link ChatCompletionsRequestDescription}. */
export const ChatCompletionsRequestDescriptionSchema = z.strictObject({
  model: z
    .string({ error: "must be a string" })
    .check(z.minLength(1, "must be a non-empty model name")),
  system: z.exactOptional(
    z.union(
      [z.string(), z.looseObject({ role: z.enum(["system", "developer"]), content: z.unknown() })],
      { error: 'must be a string or a message with role "system" or "developer"' },
    ),
  ),
  tools: z.exactOptional(z.array(ObjectSchema, { error: "must be an array of tools" })),
  reasoning: z.exactOptional(z.enum(["keep", "drop"], { error: 'must be "keep" or "drop"' })),
});

/** The part of a `chat.completions.create` body {@link chatCompletionsRequest} builds. */
export interface ChatCompletionsRequestBody {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
}

/** The system prompt as the first message, or none. */
function systemMessages(system: ChatCompletionsRequestDescription["system"]) {
  if (system === undefined) return [];
  if (typeof system === "string") return [{ role: "system" as const, content: system }];
  return [copyJson(system as unknown as JsonObject) as unknown as ChatCompletionMessageParam];
}

/**
 * The agent loop's request from one shared description and the session's messages: the
 * system prompt, then `toChatMessages(messages)`, and the tools. Pass the same description to
 * `ChatCompletionsLlmClient`, so its summary requests start with the same bytes and read them
 * from the host's prompt cache. Spread it and add the rest (`max_completion_tokens`, …).
 *
 * @example
 * const AGENT = { model: "gpt-5.6-luna", system: SYSTEM, tools: TOOLS };
 * const completion = await client.chat.completions.create(chatCompletionsRequest(AGENT, session.messages));
 * @throws {ValidationError} naming the field of a bad description.
 */
export function chatCompletionsRequest(
  description: ChatCompletionsRequestDescription,
  messages: readonly Message[],
): ChatCompletionsRequestBody {
  parseOrThrow(ChatCompletionsRequestDescriptionSchema, description, "request description");
  const { model, system, tools, reasoning } = description;
  return {
    model,
    messages: [
      ...systemMessages(system),
      ...toChatMessages(messages, reasoning === undefined ? {} : { reasoning }),
    ],
    ...(tools === undefined
      ? {}
      : { tools: copyJson(tools as unknown as JsonObject[]) as unknown as ChatCompletionTool[] }),
  };
}
