import type { Message } from "../core/message.js";
import { fastMessageTokens } from "../core/message-fast-check.js";

/**
 * Messages the library built itself and hands straight to a session's `append`, no caller
 * having held them (a LangChain thread's conversion, say): the session need not copy them to
 * own them. Each is taken once.
 */
const handedOver = new WeakSet<object>();

/**
 * Marks `messages` as built by the library from input it checked and copied, and held by no
 * caller: the `append` that comes next takes them without a copy (see {@link takeHandedOver}).
 * Only for messages that go to `append` before any caller's code runs.
 */
export function handOver(messages: readonly Message[]): void {
  for (const message of messages) handedOver.add(message);
}

/**
 * Whether every one of `values` was handed over ({@link handOver}) and is certainly well formed
 * ({@link fastMessageTokens}): then the session takes them as they are, the schema's copy
 * unneeded (no caller holds them). Each is taken once: marks are removed here.
 */
export function takeHandedOver(values: readonly unknown[]): values is Message[] {
  if (values.length === 0) return false;
  for (const value of values)
    if (typeof value !== "object" || value === null || !handedOver.has(value)) return false;
  for (const value of values) handedOver.delete(value as object);
  for (const value of values) if (fastMessageTokens(value) < 0) return false;
  return true;
}
