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

/** Options of the local, chars-based estimate. */
export interface TokenEstimateOptions {
  /** Characters per token for text and JSON. @default CHARS_PER_TOKEN (4) */
  charsPerToken?: number;
  /** Tokens counted for each image. @default 1600 */
  imageTokens?: number;
  /** Tokens of framing counted for each message and block. @default 4 */
  overheadTokens?: number;
}

/** The defaults of {@link TokenEstimateOptions}. */
export const DEFAULT_TOKEN_ESTIMATE_OPTIONS: Readonly<Required<TokenEstimateOptions>> =
  Object.freeze({ charsPerToken: CHARS_PER_TOKEN, imageTokens: 1600, overheadTokens: 4 });

function textTokens(length: number, charsPerToken: number): number {
  return Math.ceil(length / charsPerToken);
}

/** Estimates the tokens of one content block (chars per token for text and JSON, a flat cost per image). */
export function estimateBlockTokens(
  block: ContentBlock,
  options: TokenEstimateOptions = {},
): number {
  // Destructuring with defaults, not a spread: this runs once per block, on every estimate.
  const {
    charsPerToken = DEFAULT_TOKEN_ESTIMATE_OPTIONS.charsPerToken,
    imageTokens = DEFAULT_TOKEN_ESTIMATE_OPTIONS.imageTokens,
    overheadTokens = DEFAULT_TOKEN_ESTIMATE_OPTIONS.overheadTokens,
  } = options;
  switch (block.type) {
    case "text":
      return overheadTokens + textTokens(block.text.length, charsPerToken);
    case "image":
      return overheadTokens + imageTokens;
    case "thinking":
      return (
        overheadTokens + textTokens(block.thinking.length + block.signature.length, charsPerToken)
      );
    case "redacted_thinking":
      return overheadTokens + textTokens(block.data.length, charsPerToken);
    case "tool_use":
      return (
        overheadTokens +
        textTokens(block.name.length + JSON.stringify(block.input).length, charsPerToken)
      );
    case "tool_result": {
      if (typeof block.content === "string") {
        return overheadTokens + textTokens(block.content.length, charsPerToken);
      }
      let total = overheadTokens;
      for (const part of block.content) total += estimateBlockTokens(part, options);
      return total;
    }
    case "opaque":
      return overheadTokens + textTokens(JSON.stringify(block.block).length, charsPerToken);
  }
}

/** Estimates a block holding only `text` (a text block, or a tool result with string content). */
export function estimateTextTokens(text: string): number {
  return DEFAULT_TOKEN_ESTIMATE_OPTIONS.overheadTokens + textTokens(text.length, CHARS_PER_TOKEN);
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
  let total = DEFAULT_TOKEN_ESTIMATE_OPTIONS.overheadTokens;
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

/** The local chars-based {@link TokenCounter}: cheap, synchronous, approximate. */
export const estimatingTokenCounter: TokenCounter = Object.freeze({
  countTokens: estimateTokens,
});
