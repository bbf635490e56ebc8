import type { Message } from "../core/message.js";
import type { ToolNames } from "./message-out.js";

/**
 * The tool names of the calls in `messages` before {@link CallNames.position}, found when a
 * result asks: the latest call with an id names it. A look at the latest assistant message
 * before (where the AI SDK puts a result's call) finds most; a table of every call before, built
 * only when one is asked for, the rest.
 */
export class CallNames implements ToolNames {
  readonly #messages: readonly (Message | undefined)[];
  #names: Map<string, string> | undefined;
  /** Messages before this index are in {@link #names}. */
  #upTo = 0;
  /** Calls are looked for in the messages before this index. */
  position = 0;
  /** The index of the latest assistant message before {@link position}; -1 before any. */
  lastAssistant = -1;

  constructor(messages: readonly (Message | undefined)[]) {
    this.#messages = messages;
  }

  get(toolUseId: string): string | undefined {
    // Only assistant messages hold calls: one in the latest with this id is the latest call.
    const near = this.#messages[this.lastAssistant]?.content;
    if (near !== undefined) {
      for (let index = near.length - 1; index >= 0; index -= 1) {
        const block = near[index]!;
        if (block.type === "tool_use" && block.id === toolUseId) return block.name;
      }
    }
    this.#names ??= new Map();
    const names = this.#names;
    for (; this.#upTo < this.position; this.#upTo += 1) {
      const message = this.#messages[this.#upTo];
      if (message?.role !== "assistant") continue;
      for (const block of message.content)
        if (block.type === "tool_use") names.set(block.id, block.name);
    }
    return names.get(toolUseId);
  }

  /** Calls are read from the messages themselves, in order. */
  set(): void {}
}
