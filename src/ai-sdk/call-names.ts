import type { ContentBlock, Message } from "../core/message.js";
import type { ToolNames } from "./message-out.js";

/**
 * A message of up to this many blocks is searched block by block for each result; a larger one
 * gets a table of its calls, built once, so its n results cost n lookups, not n scans.
 */
const SCANNED_BLOCKS = 16;

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
  /** The content of a large latest assistant message, whose calls {@link #nearNames} holds. */
  #nearContent: readonly ContentBlock[] | undefined;
  #nearNames: Map<string, string> | undefined;
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
      const name = this.#nearName(near, toolUseId);
      if (name !== undefined) return name;
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

  /** The name of the latest call `toolUseId` in `near`, the latest assistant message's content. */
  #nearName(near: readonly ContentBlock[], toolUseId: string): string | undefined {
    if (near.length <= SCANNED_BLOCKS) {
      for (let index = near.length - 1; index >= 0; index -= 1) {
        const block = near[index]!;
        if (block.type === "tool_use" && block.id === toolUseId) return block.name;
      }
      return undefined;
    }
    if (this.#nearContent !== near || this.#nearNames === undefined) {
      // A later call with the same id overwrites an earlier one: the latest names it.
      const names = new Map<string, string>();
      for (const block of near) if (block.type === "tool_use") names.set(block.id, block.name);
      this.#nearContent = near;
      this.#nearNames = names;
    }
    return this.#nearNames.get(toolUseId);
  }

  /** Calls are read from the messages themselves, in order. */
  set(): void {}
}
