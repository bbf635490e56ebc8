import { geminiFields } from "../core/gemini-contents.js";
import type { ContentBlock, ToolUseBlock } from "../core/message.js";

/** How many of the latest calls a result's call is looked for among before the map of all. */
const LOOK_BACK = 8;

/**
 * The calls written so far, by id (the latest of an id): a result's call is looked for among the
 * last few (it mostly answers one of them), then in a map of them all, made on the first miss
 * (not a map entry per call of every conversation).
 */
export class CallsSoFar {
  readonly #calls: ToolUseBlock[] = [];
  #byId: Map<string, number> | undefined;

  add(call: ToolUseBlock): void {
    this.#byId?.set(call.id, this.#calls.length);
    this.#calls.push(call);
  }

  get(id: string): ToolUseBlock | undefined {
    return this.#calls[this.position(id)];
  }

  /** The call written at `position` ({@link position}). */
  at(position: number): ToolUseBlock {
    return this.#calls[position]!;
  }

  /** Where the call `id` was written among the calls so far; -1 when it was not. */
  position(id: string): number {
    const calls = this.#calls;
    const stop = Math.max(0, calls.length - LOOK_BACK);
    for (let index = calls.length - 1; index >= stop; index -= 1)
      if (calls[index]!.id === id) return index;
    if (stop === 0) return -1;
    if (this.#byId === undefined) {
      this.#byId = new Map();
      for (let index = 0; index < calls.length; index += 1) this.#byId.set(calls[index]!.id, index);
    }
    return this.#byId.get(id) ?? -1;
  }
}

/**
 * `content` with the results that answer calls written without an id in the order of those
 * calls: Gemini pairs a response without an id with the first open call of its name, so a
 * result added as its tool finished (the second call's first) would answer the other call.
 * The same array when they are in order already.
 */
export function inCallOrder(
  content: readonly ContentBlock[],
  calls: CallsSoFar,
): readonly ContentBlock[] {
  // Each such result's place in `content`, and its call's among the calls, looked up once.
  let found: { slot: number; call: number }[] | undefined;
  for (let slot = 0; slot < content.length; slot += 1) {
    const block = content[slot]!;
    if (block.type !== "tool_result") continue;
    const call = calls.position(block.toolUseId);
    if (call === -1 || geminiFields(calls.at(call))?.["noId"] !== true) continue;
    found ??= [];
    found.push({ slot, call });
  }
  if (found === undefined || found.length < 2) return content;
  const ordered = found.slice().sort((a, b) => a.call - b.call);
  if (ordered.every((each, index) => each === found[index])) return content;
  const out = content.slice();
  for (let index = 0; index < found.length; index += 1)
    out[found[index]!.slot] = content[ordered[index]!.slot]!;
  return out;
}
