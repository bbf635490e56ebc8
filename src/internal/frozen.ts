import type { Message } from "../core/message.js";

/** Objects frozen with everything they hold (so a walk stops at them). */
const deeplyFrozen = new WeakSet<object>();

/**
 * Freezes `value` and every object and array it holds, without recursion; objects frozen so
 * before are not walked again. What a session holds is frozen so that nothing a caller holds
 * (a message from `session.messages`, a request built from it) can change the history.
 */
export function freezeDeeply<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null || deeplyFrozen.has(item)) continue;
    Object.freeze(item);
    deeplyFrozen.add(item);
    for (const inner of Object.values(item)) if (typeof inner === "object") stack.push(inner);
  }
  return value;
}

/** Freezes each message deeply (see {@link freezeDeeply}); a message frozen before costs a lookup. */
export function freezeMessages(messages: readonly Message[]): void {
  for (const message of messages) if (!deeplyFrozen.has(message)) freezeDeeply(message);
}
