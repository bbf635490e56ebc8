import type { Message } from "../core/message.js";
import { fastMessageTokens } from "../core/message-fast-check.js";

/**
 * The messages the library built itself and is handing straight to a session's `append`, no
 * caller having held them (a LangChain thread's conversion, say): the session need not copy
 * them to own them. One batch at a time, held only from {@link handOver} to the `append` right
 * after it (no other code runs between them).
 */
let handedOver: readonly Message[] | undefined;

/**
 * Marks `messages` as built by the library from input it checked and copied, held by no caller:
 * the `append` that comes next, with these very messages, takes them without a copy (see
 * {@link takeHandedOver}); `undefined` withdraws the mark. Call `append` right after it, and
 * withdraw the mark once it returned or threw.
 */
export function handOver(messages: readonly Message[] | undefined): void {
  handedOver = messages;
}

/**
 * Whether `values` are the messages handed over ({@link handOver}), the same objects in the
 * same order, and each certainly well formed ({@link fastMessageTokens}): then the session takes
 * them as they are, the schema's copy unneeded (no caller holds them). The mark is used once.
 */
export function takeHandedOver(values: readonly unknown[]): values is Message[] {
  return handedOverTokens(values) !== undefined;
}

/**
 * {@link takeHandedOver}, with each message's token estimate (what {@link fastMessageTokens}
 * worked out checking it) when they are taken; `undefined` when not. The mark is used once.
 */
export function handedOverTokens(values: readonly unknown[]): number[] | undefined {
  const batch = handedOver;
  handedOver = undefined;
  if (batch === undefined || batch.length !== values.length || values.length === 0)
    return undefined;
  for (let index = 0; index < values.length; index += 1)
    if (values[index] !== batch[index]) return undefined;
  const tokens: number[] = [];
  for (let index = 0; index < values.length; index += 1) {
    const estimate = fastMessageTokens(values[index]);
    if (estimate < 0) return undefined;
    tokens.push(estimate);
  }
  return tokens;
}
