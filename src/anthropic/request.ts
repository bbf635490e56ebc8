import type {
  CacheControlEphemeral,
  MessageCreateParamsNonStreaming,
  MessageParam,
} from "@anthropic-ai/sdk/resources/messages";
import * as z from "zod/mini";
import { anyAssistantImage, withAssistantImagesMoved } from "../core/assistant-images.js";
import {
  isSystemMessage,
  isSystemMessageBlock,
  readableMessages,
  startsWithCompaction,
} from "../core/conversation-structure.js";
import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import { assertMessages } from "../core/entry-validation.js";
import { parseOrThrow } from "../core/errors.js";
import type { ContentBlock, Message } from "../core/message.js";
import { type ItemOrigins, sendsWhole } from "../internal/item-origins.js";
import { isStringContent, toAnthropicContent } from "./blocks.js";
import { sendsToAnthropic, systemMessageToWire } from "./foreign-blocks.js";
import { ModelNameSchema, SystemParamSchema, ToolsParamSchema } from "./param-schemas.js";

/** Whether no tool result follows a block of another type (tool results lead, as the API asks). */
function resultsLead(blocks: readonly ContentBlock[]): boolean {
  let others = false;
  // By index: a `for…of` with an early return keeps an iterator per call.
  for (let index = 0; index < blocks.length; index += 1) {
    if (blocks[index]!.type !== "tool_result") others = true;
    else if (others) return false;
  }
  return true;
}

function reorderToolResultsFirst(blocks: ContentBlock[]): ContentBlock[] {
  // Already in order (the common case): the same array, nothing made.
  if (resultsLead(blocks)) return blocks;
  const results = blocks.filter((block) => block.type === "tool_result");
  return [...results, ...blocks.filter((block) => block.type !== "tool_result")];
}

const contentOf = (message: Message): ContentBlock[] => message.content;

/**
 * Whether a message sends anything: a system message, one of no blocks (sent as it was), or
 * one with a block the Messages API reads. One of only other APIs' blocks (a Responses
 * reasoning item, a Gemini thought) is left out whole: the API refuses an empty message.
 */
function sendsSomething(message: Message): boolean {
  const { content } = message;
  // Most messages lead with a block every API reads: answered without a walk.
  if (content.length === 0 || content[0]!.type !== "opaque") return true;
  return isSystemMessage(message) || content.some(sendsToAnthropic);
}

/** Whether every message sends something (the common case: nothing to leave out). */
function allSend(messages: readonly Message[]): boolean {
  for (let index = 0; index < messages.length; index += 1)
    if (!sendsSomething(messages[index]!)) return false;
  return true;
}

/** Whether a message is sent as a wire message of its own, never merged with a neighbour. */
const standsAlone = (message: Message) => isSystemMessage(message) || startsWithCompaction(message);

/**
 * Converts our conversation to the `messages` of an Anthropic request: consecutive messages
 * of one role become one message (so the summary and the first kept user message are sent
 * as one user message), `tool_result` blocks lead their user message, and our own fields
 * (`compactSummary`, the adapters' bookkeeping) are left out, as are the other APIs' blocks
 * (their reasoning, parts and items; a message of only those is left out whole). A
 * mid-conversation system message goes out as the `role: "system"` message it carries
 * (another API's as one of its text), and a message led by the API's `compaction` block as a
 * message of its own, both where they stand. A call whose id an earlier call had (a provider
 * numbering each reply's calls) goes with its results as `<id>_<n>`, as the API wants each
 * tool use's id distinct. Messages that came from `fromAnthropicMessages` come back exactly as
 * they were sent, string content included.
 *
 * @example
 * await session.maybeCompact();
 * const response = await client.messages.create({
 *   model, max_tokens: 1024, messages: toAnthropicMessages(session.messages),
 * });
 * @throws {ValidationError} when a message is malformed or two share an id.
 */
export function toAnthropicMessages(input: readonly Message[]): MessageParam[] {
  // Cheap for a session's messages: each message object is fully checked only once.
  assertMessages(input, "messages");
  return writeAnthropicMessages(withDistinctToolIds(readableMessages(input)));
}

/** A param's shape: written whole by a spread (see `core/message-shapes.ts`), each field set. */
const PARAM = { role: "user", content: "" } as const;

/**
 * {@link toAnthropicMessages} of messages checked where they entered (a one-call helper's): a
 * message sent alone, whole, its tool results leading, that `origins` knows unchanged goes as
 * the caller's param it came from.
 */
export function writeAnthropicMessages(
  input: readonly Message[],
  origins?: ItemOrigins<MessageParam>,
): MessageParam[] {
  const readable = readableMessages(input);
  // Left out before grouping, so the neighbours of a message left out join as usual.
  const messages = allSend(readable) ? readable : readable.filter(sendsSomething);
  // At most one param per message: made at that size and cut to the count, never grown.
  const params: MessageParam[] = new Array(messages.length);
  let count = 0;
  let index = 0;
  while (index < messages.length) {
    const first = messages[index]!;
    const carried = first.content[0];
    if (isSystemMessage(first) && isSystemMessageBlock(carried)) {
      const message = systemMessageToWire(carried.block.message);
      if (message !== undefined) params[count++] = message as unknown as MessageParam;
      index += 1;
      continue;
    }
    const role = first.role;
    const start = index;
    index += 1;
    if (!standsAlone(first)) {
      while (
        index < messages.length &&
        messages[index]!.role === role &&
        !standsAlone(messages[index]!)
      )
        index += 1;
    }
    // The API refuses an image in an assistant turn: written again with the images in the user
    // message after (rare; found here, where the blocks are read anyway).
    if (role === "assistant" && anyAssistantImage(messages, start, index))
      return writeAnthropicMessages(withAssistantImagesMoved(readable), origins);
    // A message alone (the common case) lends its own blocks; only a group is joined.
    const single = index - start === 1;
    if (
      single &&
      origins !== undefined &&
      resultsLead(first.content) &&
      sendsWhole(first, sendsToAnthropic)
    ) {
      const next = origins.put(first, params, count);
      if (next !== -1) {
        count = next;
        continue;
      }
    }
    const blocks = single ? first.content : messages.slice(start, index).flatMap(contentOf);
    if (single && isStringContent(blocks)) {
      params[count++] = { ...PARAM, role, content: blocks[0].text };
      continue;
    }
    const ordered = role === "user" ? reorderToolResultsFirst(blocks) : blocks;
    params[count++] = { ...PARAM, role, content: toAnthropicContent(ordered) };
  }
  params.length = count;
  return params;
}

/**
 * What every request of one agent shares before its messages: the model, the system prompt,
 * the tools and the thinking setting. The agent's loop ({@link anthropicRequest}),
 * `AnthropicLlmClient` and `AnthropicCompactor` all take the same object, so a summary or a
 * compaction request sends the prefix the agent sent, byte for byte: its thinking stays valid
 * and the provider reads it from the prompt cache.
 */
export interface AnthropicRequestDescription {
  /** The model, e.g. `"claude-sonnet-5-5"`. */
  model: string;
  /** The system prompt. @default none */
  system?: MessageCreateParamsNonStreaming["system"];
  /** The tools. @default none */
  tools?: MessageCreateParamsNonStreaming["tools"];
  /** The thinking setting. @default none (the model's default) */
  thinking?: MessageCreateParamsNonStreaming["thinking"];
}

/** Schema of {@link AnthropicRequestDescription}. */
export const AnthropicRequestDescriptionSchema = z.strictObject(
  {
    model: ModelNameSchema,
    system: z.exactOptional(SystemParamSchema),
    tools: z.exactOptional(ToolsParamSchema),
    thinking: z.exactOptional(z.record(z.string(), z.unknown(), { error: "must be an object" })),
  },
  {
    error: (issue) =>
      issue.code === "invalid_type" ? "must be { model, system?, tools?, thinking? }" : undefined,
  },
);

/** Checks a request description, naming the bad field. */
export function assertRequestDescription(
  value: unknown,
  subject: string,
): asserts value is AnthropicRequestDescription {
  parseOrThrow(AnthropicRequestDescriptionSchema, value, subject);
}

/** Options of {@link anthropicRequest}. */
export interface AnthropicRequestBuildOptions {
  /** `max_tokens` of the request. */
  maxTokens: number;
  /**
   * The request's top-level `cache_control`: the API puts a cache breakpoint on its last
   * cacheable block, so the next request (or a summary request) reads this one's prefix from
   * the cache; `false` sends none. @default { type: "ephemeral" }
   */
  cacheControl?: CacheControlEphemeral | false;
}

/**
 * Builds one request of the agent's loop from the shared description and the session's
 * messages: `model`, `system`, `tools` and `thinking` from the description (absent ones left
 * out), `messages` from {@link toAnthropicMessages}, and a top-level `cache_control`.
 *
 * @example
 * const AGENT = { model: "claude-sonnet-5-5", system: SYSTEM, tools: TOOLS };
 * await session.maybeCompact();
 * const response = await client.messages.create(
 *   anthropicRequest(AGENT, session.messages, { maxTokens: 4096 }),
 * );
 * @throws {ValidationError} when the description or a message is malformed.
 */
export function anthropicRequest(
  description: AnthropicRequestDescription,
  messages: readonly Message[],
  options: AnthropicRequestBuildOptions,
): MessageCreateParamsNonStreaming {
  assertRequestDescription(description, "AnthropicRequestDescription");
  return requestFromParams(description, toAnthropicMessages(messages), options);
}

/** The request body for wire messages already converted (the description trusted). */
export function requestFromParams(
  description: AnthropicRequestDescription,
  messages: MessageParam[],
  options: AnthropicRequestBuildOptions,
): MessageCreateParamsNonStreaming {
  const cacheControl = options.cacheControl ?? { type: "ephemeral" };
  return {
    model: description.model,
    max_tokens: options.maxTokens,
    ...(description.system === undefined ? {} : { system: description.system }),
    ...(description.tools === undefined ? {} : { tools: description.tools }),
    ...(description.thinking === undefined ? {} : { thinking: description.thinking }),
    ...(cacheControl === false ? {} : { cache_control: cacheControl }),
    messages,
  };
}

/**
 * `messages` with `text` appended as the final user message: added to the last message when it
 * is the user's (a new message of the same role would be merged into it anyway), a new user
 * message otherwise. The messages before the last are the same objects.
 */
export function withFinalUserText(messages: readonly MessageParam[], text: string): MessageParam[] {
  const last = messages.at(-1);
  if (last === undefined || last.role !== "user") {
    return [...messages, { role: "user", content: [{ type: "text", text }] }];
  }
  const content =
    typeof last.content === "string"
      ? [{ type: "text" as const, text: last.content }]
      : [...last.content];
  return [
    ...messages.slice(0, -1),
    { role: "user", content: [...content, { type: "text", text }] },
  ];
}
