import type { Message } from "../core/message.js";

/**
 * Objects frozen with everything they hold (so a walk stops at them). Only those that hold
 * objects are entered: freezing one that holds none again is as cheap as looking it up, and
 * a session freezes tens of thousands of them (a message's turn id, a block, a tool input).
 */
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
    let holdsObjects = false;
    for (const inner of Object.values(item)) {
      if (typeof inner !== "object" || inner === null) continue;
      stack.push(inner);
      holdsObjects = true;
    }
    // Entered before what it holds is walked: a cycle ends here.
    if (holdsObjects) deeplyFrozen.add(item);
  }
  return value;
}

/** Freezes each message deeply (see {@link freezeDeeply}); a message frozen before costs a lookup. */
export function freezeMessages(messages: readonly Message[]): void {
  for (const message of messages) if (!deeplyFrozen.has(message)) freezeDeeply(message);
}
