import type { BaseMessage } from "@langchain/core/messages";
import type { Message, ToolResultBlock } from "../core/message.js";
import type { LangChainSources } from "./messages-out.js";

/**
 * What a one-call helper's messages came from, for the messages compaction changed (those it
 * left as they were go back whole through `ItemOrigins`): the message of ours each was made
 * from, found by its id at a cursor that moves forward (compaction keeps messages in order), and
 * the LangChain messages that one was read from. Nothing is remembered per message: a map or a
 * weak map of every message cost a fifth of the call at 10k messages.
 */
export class CallSources implements LangChainSources {
  readonly #fresh: readonly BaseMessage[];
  readonly #converted: readonly Message[];
  /** For each converted message, the index of the LangChain message it starts at. */
  readonly #starts: readonly number[];
  /** The converted message the message being written was made from (-1: none, a new one). */
  #current = -1;
  /** Where the next search by id starts. */
  #next = 0;

  constructor(
    fresh: readonly BaseMessage[],
    converted: readonly Message[],
    starts: readonly number[],
  ) {
    this.#fresh = fresh;
    this.#converted = converted;
    this.#starts = starts;
  }

  /**
   * Takes `message` (changed, or made by compaction) as the one written next: the converted
   * message of its id, searched from after the last one found, then from the start.
   */
  writing(message: Message): void {
    this.#current = this.#indexOf(message.id);
    if (this.#current !== -1) this.#next = this.#current + 1;
  }

  #indexOf(id: string): number {
    const converted = this.#converted;
    for (let index = this.#next; index < converted.length; index += 1)
      if (converted[index]!.id === id) return index;
    for (let index = 0; index < this.#next && index < converted.length; index += 1)
      if (converted[index]!.id === id) return index;
    return -1;
  }

  /** A message written here changed: `ItemOrigins` gave back each unchanged one whole. */
  unchanged(_message: Message): BaseMessage | undefined {
    return undefined;
  }

  result(block: ToolResultBlock): { source: BaseMessage; unchanged: boolean } | undefined {
    const index = this.#current;
    if (index === -1) return undefined;
    const { content } = this.#converted[index]!;
    // Only a message of results was read one tool message per block.
    if (!content.every((each) => each.type === "tool_result")) return undefined;
    const start = this.#starts[index]!;
    const end = this.#starts[index + 1] ?? this.#fresh.length;
    for (let at = 0; at < content.length && start + at < end; at += 1) {
      const read = content[at] as ToolResultBlock;
      if (read === block) return { source: this.#fresh[start + at]!, unchanged: true };
      if (read.toolUseId === block.toolUseId)
        return { source: this.#fresh[start + at]!, unchanged: false };
    }
    return undefined;
  }

  /** A message read from the caller's keeps its id; one compaction made (a notice) has none. */
  writesId(_message: Message): boolean {
    return this.#current !== -1;
  }

  original(id: string): BaseMessage | undefined {
    const index = this.#current;
    return index !== -1 && this.#converted[index]!.id === id
      ? this.#fresh[this.#starts[index]!]
      : undefined;
  }
}
