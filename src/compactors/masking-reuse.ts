import type { Message } from "../core/message.js";

/** What a masking pass made of a conversation array: its messages then, and what it returned. */
export interface PastMasking {
  sources: readonly Message[];
  output: readonly Message[];
}

/**
 * By the conversation's first message: a loop that keeps its conversation and compacts it again,
 * grown or not, in the same array or a new one, finds what the last pass made of it.
 */
const pastMaskings = new WeakMap<Message, PastMasking>();

/** What the last masking pass on a conversation starting as `input` does made of it, if any. */
export function pastMasking(input: readonly Message[]): PastMasking | undefined {
  const first = input[0];
  return first === undefined ? undefined : pastMaskings.get(first);
}

/**
 * Remembers what a masking pass made of `input`: `sources`, the messages it read
 * (the array's, copied here unless the pass read a copy already), and its `output` (copied:
 * the caller gets the array itself).
 */
export function rememberMasking(
  input: readonly Message[],
  sources: readonly Message[],
  output: readonly Message[],
): void {
  const first = input[0];
  if (first === undefined) return;
  pastMaskings.set(first, {
    sources: sources === input ? input.slice() : sources,
    output: output.slice(),
  });
}

/**
 * The message a past pass made of `message` (at `index` then too, a message of one block) when that pass replaced the block's content by `replacement` too: the same message
 * this pass would make, reused rather than made again (messages are immutable).
 */
export function maskedBefore(
  past: PastMasking | undefined,
  index: number,
  message: Message,
  replacement: string,
): Message | undefined {
  if (past === undefined || past.sources[index] !== message || message.content.length !== 1)
    return undefined;
  const made = past.output[index];
  if (made === undefined || made === message || made.content.length !== 1) return undefined;
  const block = made.content[0];
  return block?.type === "tool_result" && block.content === replacement ? made : undefined;
}
