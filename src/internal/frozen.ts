import type { ContentBlock, Message } from "../core/message.js";
import { MAX_JSON_DEPTH } from "./json-value.js";

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

/**
 * How deep {@link freezeMessages} walks a message by itself: past it (deeper than any valid
 * message nests, or a cycle) {@link freezeDeeply} takes the rest, which ends on cycles.
 */
const MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 8;

/**
 * Freezes each message deeply (see {@link freezeDeeply}); a message frozen before costs a lookup,
 * one at the same place in `frozenBefore` (messages this function froze) none.
 * Only the message is remembered as frozen: inside it the walk stops at what was remembered
 * before (a value frozen deeply), and enters the rest, remembering none of it (a session freezes
 * tens of thousands of blocks, and remembering each cost more than freezing it).
 */
export function freezeMessages(
  messages: readonly Message[],
  frozenBefore: readonly Message[] = [],
): void {
  const stack: object[] = [];
  const depths: number[] = [];
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (message === frozenBefore[index] || deeplyFrozen.has(message)) continue;
    stack.push(message);
    depths.push(0);
    while (stack.length > 0) {
      const item = stack.pop()!;
      const depth = depths.pop()!;
      if (depth > MAX_MESSAGE_DEPTH) {
        freezeDeeply(item);
        continue;
      }
      Object.freeze(item);
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        const inner: unknown = (item as Record<string, unknown>)[key];
        if (typeof inner !== "object" || inner === null || deeplyFrozen.has(inner)) continue;
        stack.push(inner);
        depths.push(depth + 1);
      }
    }
    deeplyFrozen.add(message);
  }
}

/**
 * Freezes messages the library has just built itself from input it copied (a provider
 * adapter's conversion), of the shapes `Message` defines and no more: each message, its turn
 * id, date and content, each block, and what a block's fields hold ({@link freezeDeeply}),
 * without walking every key of every object; {@link freezeMessages} then knows them as frozen.
 * Never for messages from elsewhere: a field `Message` does not define would stay unfrozen.
 */
export function freezeBuiltMessages(messages: readonly Message[]): void {
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (deeplyFrozen.has(message)) continue;
    Object.freeze(message);
    Object.freeze(message.turnId);
    Object.freeze(message.createdAt);
    const { content } = message;
    Object.freeze(content);
    for (let at = 0; at < content.length; at += 1) freezeBuiltBlock(content[at]!);
    deeplyFrozen.add(message);
  }
}

/** Freezes a block of the shape its type defines, and what its fields hold. */
function freezeBuiltBlock(block: ContentBlock): void {
  Object.freeze(block);
  switch (block.type) {
    case "tool_use":
      freezeBuilt(block.input, 0);
      break;
    case "tool_result":
      if (typeof block.content !== "string") freezeBuilt(block.content, 0);
      break;
    case "image":
      freezeBuilt(block.source, 0);
      break;
    case "opaque":
      freezeBuilt(block.block, 0);
      break;
  }
  const { extra } = block as { extra?: object };
  if (extra !== undefined) freezeBuilt(extra, 0);
}

/**
 * Freezes a value a block holds and everything in it, remembering none of it: cheaper than
 * {@link freezeDeeply}, which remembers what it froze (a third of a LangChain thread's first
 * append of 10k messages went to freezing). A copy just made holds no cycle and nothing frozen;
 * what is frozen already (met again through a cycle or a shared value, or frozen before) and
 * what lies deeper than a JSON value may go is left to that walk, which ends cycles. An array
 * is walked by index (a copy is dense; its named properties, which a JSON copy has none of, are
 * not walked).
 */
function freezeBuilt(value: unknown, depth: number): void {
  if (typeof value !== "object" || value === null) return;
  if (depth >= MAX_JSON_DEPTH || Object.isFrozen(value)) {
    freezeDeeply(value);
    return;
  }
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) freezeBuilt(value[index], depth + 1);
    return;
  }
  for (const key in value)
    if (Object.hasOwn(value, key)) freezeBuilt((value as Record<string, unknown>)[key], depth + 1);
}
