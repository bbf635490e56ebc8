import type { ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { PartContext } from "./parts-in.js";

type Path = (string | number)[];

/**
 * The context of the parts of one conversion, moved from part to part without allocating.
 * It finds a result's call in the messages converted so far: in the assistant message before
 * (where the AI SDK puts it) by a look at its blocks, anywhere else through a table of every
 * call, built only when one is asked for.
 */
export class PartCursor implements PartContext {
  readonly issues: ValidationIssue[] = [];
  message = 0;
  part = 0;
  /** The conversion's output so far: `converted[index]` for each message before {@link message}. */
  readonly converted: readonly (Message | undefined)[];
  /** The index of the last assistant message converted; -1 before any. */
  lastAssistant = -1;
  #names: Map<string, string> | undefined;
  /** Messages before this index are in {@link #names}. */
  #namesUpTo = 0;
  constructor(converted: readonly (Message | undefined)[]) {
    this.converted = converted;
  }
  get path(): Path {
    return [this.message, "content", this.part];
  }
  callName(toolUseId: string): string | undefined {
    // Only assistant messages hold calls: one there with this id is the latest one.
    const near = this.converted[this.lastAssistant]?.content;
    if (near !== undefined) {
      for (let index = near.length - 1; index >= 0; index -= 1) {
        const block = near[index]!;
        if (block.type === "tool_use" && block.id === toolUseId) return block.name;
      }
    }
    this.#names ??= new Map();
    const names = this.#names;
    for (; this.#namesUpTo < this.message; this.#namesUpTo += 1) {
      const message = this.converted[this.#namesUpTo];
      if (message?.role !== "assistant") continue;
      for (const block of message.content)
        if (block.type === "tool_use") names.set(block.id, block.name);
    }
    return names.get(toolUseId);
  }
}
