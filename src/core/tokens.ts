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
/** Tokens of framing counted for each message and block by the local estimate. */
const OVERHEAD_TOKENS = 4;

/** Tokens that `length` characters take by the local estimate ({@link CHARS_PER_TOKEN}). */
export function charsToTokens(length: number): number {
  return Math.ceil(length / CHARS_PER_TOKEN);
}

/** Estimates the tokens of one content block (chars per token for text and JSON, a flat cost per image). */
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
      return (
        OVERHEAD_TOKENS + charsToTokens(block.name.length + JSON.stringify(block.input).length)
      );
    case "tool_result": {
      if (typeof block.content === "string")
        return OVERHEAD_TOKENS + charsToTokens(block.content.length);
      let total = OVERHEAD_TOKENS;
      for (const part of block.content) total += estimateBlockTokens(part);
      return total;
    }
    case "opaque":
      return OVERHEAD_TOKENS + charsToTokens(JSON.stringify(block.block).length);
  }
}

/** Estimates a block holding only `text` (a text block, or a tool result with string content). */
export function estimateTextTokens(text: string): number {
  return OVERHEAD_TOKENS + charsToTokens(text.length);
}

const messageEstimates = new WeakMap<Message, number>();

/** Whether estimating a block serialises JSON (worth remembering) rather than reading lengths. */
function isCostlyToEstimate(block: ContentBlock): boolean {
  return (
    block.type === "tool_use" ||
    block.type === "opaque" ||
    (block.type === "tool_result" && typeof block.content !== "string")
  );
}

/**
 * Estimates the tokens of one message. Messages are treated as immutable, so the
 * estimate for a message object whose blocks need JSON serialisation is computed once and
 * remembered; the others only read string lengths, which costs less than a cache entry.
 */
export function estimateMessageTokens(message: Message): number {
  const known = messageEstimates.get(message);
  if (known !== undefined) return known;
  let total = OVERHEAD_TOKENS;
  let costly = false;
  for (const block of message.content) {
    total += estimateBlockTokens(block);
    if (!costly && isCostlyToEstimate(block)) costly = true;
  }
  if (costly) messageEstimates.set(message, total);
  return total;
}

/** Estimates the tokens of a conversation with the local chars-based estimate. */
export function estimateTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}
