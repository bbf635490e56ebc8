import { jsonLength } from "../internal/json-length.js";
import { measureMedia } from "./audio-tokens.js";
import type { ContentBlock, Message } from "./message.js";

/**
 * Counts the tokens a conversation takes in a request. May be exact (a provider's
 * count endpoint) or an estimate; may be async.
 */
export interface TokenCounter {
  countTokens(messages: readonly Message[]): number | Promise<number>;
}

/**
 * Characters per token of the local estimate, for text and JSON: every conversion between
 * characters and tokens in the library uses it.
 */
export const CHARS_PER_TOKEN = 4;

/** The characters that `tokens` tokens hold by the local estimate ({@link CHARS_PER_TOKEN}). */
export function tokensToChars(tokens: number): number {
  return tokens * CHARS_PER_TOKEN;
}

/** Tokens counted for each image by the local estimate. */
const IMAGE_TOKENS = 1600;
/** Tokens of framing counted for each block of another kind by the local estimate. */
const OVERHEAD_TOKENS = 4;
/**
 * The framing of a tool call and of a tool result, as the Messages API's JSON writes it
 * (`{"type":"tool_use","id":…,"name":…,"input":…}`): an agent's many small calls ("ok" for a
 * `test -f`) are mostly framing, and counted at 4 tokens a block they came to 0.6x what was
 * sent (review 55b #3).
 */
const TOOL_USE_FRAMING = Math.ceil('{"type":"tool_use","id":"","name":"","input":},'.length / 4);
const TOOL_RESULT_FRAMING = Math.ceil(
  '{"type":"tool_result","tool_use_id":"","content":""},'.length / 4,
);

/** Tokens of framing the local estimate counts for each message, on top of its blocks. */
export const MESSAGE_OVERHEAD_TOKENS = OVERHEAD_TOKENS;

/** Tokens that `length` characters take by the local estimate ({@link CHARS_PER_TOKEN}). */
export function charsToTokens(length: number): number {
  return Math.ceil(length / CHARS_PER_TOKEN);
}

/**
 * Estimates the tokens of one content block: chars per token for text and JSON, a flat cost per
 * image, and media a provider's part carries (opaque) by its duration or bytes (`measureMedia`).
 */
export function estimateBlockTokens(block: ContentBlock): number {
  switch (block.type) {
    case "text":
      return OVERHEAD_TOKENS + charsToTokens(block.text.length);
    case "image":
      return OVERHEAD_TOKENS + IMAGE_TOKENS;
    case "thinking":
      return OVERHEAD_TOKENS + charsToTokens(block.thinking.length + block.signature.length);
    case "redacted_thinking":
      return OVERHEAD_TOKENS + charsToTokens(block.data.length);
    case "tool_use":
      return estimateToolUseTokens(
        block.id,
        block.name,
        Math.max(jsonLength(block.input), keptArgumentsLength(block.extra)),
      );
    case "tool_result": {
      if (typeof block.content === "string")
        return estimateResultTextTokens(block.toolUseId, block.content);
      let total = TOOL_RESULT_FRAMING + charsToTokens(block.toolUseId.length);
      for (const part of block.content) total += estimateBlockTokens(part);
      return total;
    }
    case "opaque": {
      // Media's base64 counted as text came to hundreds of times what providers count.
      const media = measureMedia(block.block);
      return media === undefined
        ? OVERHEAD_TOKENS + charsToTokens(jsonLength(block.block))
        : OVERHEAD_TOKENS + media.tokens + charsToTokens(media.otherLength);
    }
  }
}

/**
 * The length of the arguments an adapter keeps beside a tool use and sends in place of its
 * input: the `arguments` text of Chat Completions and the Responses API (when it is not exactly
 * the input's JSON: a model's malformed arguments too), the AI SDK's `input` that is no object
 * (a failed parse's raw text), as JSON; `0` when none is kept.
 */
export function keptArgumentsLength(extra: Readonly<Record<string, unknown>> | undefined): number {
  let length = 0;
  for (const key in extra) {
    const fields = extra[key] as { arguments?: unknown; input?: unknown } | null;
    const kept = fields?.arguments ?? fields?.input;
    if (kept !== undefined) length = Math.max(length, jsonLength(kept));
  }
  return length;
}

/**
 * Estimates a `tool_use` block from its id and its tool's name (both sent: a tool-call id is
 * often 30 characters, as long as a small call's input) and the length of its input as JSON.
 */
export function estimateToolUseTokens(id: string, name: string, inputLength: number): number {
  return TOOL_USE_FRAMING + charsToTokens(id.length + name.length + inputLength);
}

/** Estimates a tool result of the text `content` answering the call `toolUseId` (its id is sent too). */
export function estimateResultTextTokens(toolUseId: string, content: string): number {
  return TOOL_RESULT_FRAMING + charsToTokens(toolUseId.length + content.length);
}

/**
 * Estimates the tokens of a message from its content: its blocks and the message's framing
 * ({@link MESSAGE_OVERHEAD_TOKENS}), what `estimateTokens` counts for it.
 */
export function estimateContentTokens(content: readonly ContentBlock[]): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const block of content) tokens += estimateBlockTokens(block);
  return tokens;
}
