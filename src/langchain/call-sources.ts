import type { BaseMessage } from "@langchain/core/messages";
import type { ContentBlock, Message, ToolResultBlock } from "../core/message.js";
import type { LangChainSources } from "./messages-out.js";

const isResults = (message: Message): boolean =>
  message.content.every((block) => block.type === "tool_result");

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
  /** Whether that message is one of tool results only (read one tool message per block). */
  #results = false;
  /** Its block the next result written is looked for from (they are written in order). */
  #at = 0;
  /** Where the next search by id starts. */
  #next = 0;
  /** The caller's tool messages {@link result} gave back unchanged (made only for one). */
  #given: Set<BaseMessage> | undefined;

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
   * Notes that `message`, one of the conversion's, went back unchanged (`ItemOrigins` put the
   * caller's): the search for the next one written starts after it. Found by the object, not
   * by its id: two ids of the same length compare character by character.
   */
  passing(message: Message): void {
    if (this.#converted[this.#next] === message) this.#next += 1;
  }

  /**
   * Takes `message` (changed, or made by compaction) as the one written next: the converted
   * message of its id, searched from after the last one found, then from the start.
   */
  writing(message: Message): void {
    const index = this.#indexOf(message.id);
    this.#current = index;
    this.#at = 0;
    this.#results = index !== -1 && isResults(this.#converted[index]!);
    if (index !== -1) this.#next = index + 1;
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

  /**
   * The tool message the result came from: the block at the cursor when it is that block or
   * answers the same call (compaction edits results in place, in order; its id maybe sent anew),
   * else the block itself
   * wherever it stands, else the next one answering the same call (results of one call each
   * keep their own message); the cursor moves past it. Linear in the message's results when
   * they are written in order.
   */
  result(block: ToolResultBlock): { source: BaseMessage; unchanged: boolean } | undefined {
    const index = this.#current;
    if (index === -1 || !this.#results) return undefined;
    const { content } = this.#converted[index]!;
    const start = this.#starts[index]!;
    const count = Math.min(content.length, (this.#starts[index + 1] ?? this.#fresh.length) - start);
    const at = this.#position(content, count, block);
    if (at === -1) return undefined;
    this.#at = at + 1;
    const source = this.#fresh[start + at]!;
    const unchanged = content[at] === block;
    if (unchanged) {
      this.#given ??= new Set();
      this.#given.add(source);
    }
    return { source, unchanged };
  }

  /** Whether `message`, written for a changed message, is the caller's own, given back by {@link result}. */
  gaveBack(message: BaseMessage): boolean {
    return this.#given?.has(message) === true;
  }

  /** Where `block`'s source stands among the first `count` of `content` (see {@link result}). */
  #position(content: readonly ContentBlock[], count: number, block: ToolResultBlock): number {
    const cursor = this.#at;
    const here = content[cursor] as ToolResultBlock | undefined;
    const id = here?.toolUseId;
    // Its call's id, or that id sent anew (`<id>_<n>`: `withDistinctToolIds`).
    if (cursor < count && (id === block.toolUseId || block.toolUseId.startsWith(`${id}_`)))
      return cursor;
    for (let at = 0; at < count; at += 1) if (content[at] === block) return at;
    for (let step = 0; step < count; step += 1) {
      const at = (cursor + step) % count;
      if ((content[at] as ToolResultBlock).toolUseId === block.toolUseId) return at;
    }
    return -1;
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
