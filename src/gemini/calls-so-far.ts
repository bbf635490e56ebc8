import { geminiFields } from "../core/gemini-contents.js";
import type { ContentBlock, ToolResultBlock, ToolUseBlock } from "../core/message.js";

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
    const at = this.position(id);
    return at === -1 ? undefined : this.#calls[at];
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
  let slots: number[] | undefined;
  for (let index = 0; index < content.length; index += 1) {
    const block = content[index]!;
    if (block.type !== "tool_result") continue;
    const call = calls.get(block.toolUseId);
    if (call === undefined || geminiFields(call)?.["noId"] !== true) continue;
    slots ??= [];
    slots.push(index);
  }
  if (slots === undefined || slots.length < 2) return content;
  const noted = slots;
  const callAt = (slot: number) => calls.position((content[slot] as ToolResultBlock).toolUseId);
  const ordered = noted.slice().sort((a, b) => callAt(a) - callAt(b));
  if (ordered.every((slot, index) => slot === noted[index])) return content;
  const out = content.slice();
  for (let index = 0; index < slots.length; index += 1)
    out[slots[index]!] = content[ordered[index]!]!;
  return out;
}
