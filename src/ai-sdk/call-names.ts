import type { ContentBlock, Message } from "../core/message.js";
import type { ToolNames } from "./message-out.js";

/**
 * A message of up to this many blocks is searched block by block for each result; a larger one
 * gets a table of its calls, built once, so its n results cost n lookups, not n scans.
 */
const SCANNED_BLOCKS = 16;

/** The name of the latest call `toolUseId` in one message's content, a large one's calls in a table built once. */
class NearCalls {
  #content: readonly ContentBlock[] | undefined;
  #names: Map<string, string> | undefined;

  name(content: readonly ContentBlock[], toolUseId: string): string | undefined {
    if (content.length <= SCANNED_BLOCKS) {
      for (let index = content.length - 1; index >= 0; index -= 1) {
        const block = content[index]!;
        if (block.type === "tool_use" && block.id === toolUseId) return block.name;
      }
      return undefined;
    }
    if (this.#content !== content || this.#names === undefined) {
      // A later call with the same id overwrites an earlier one: the latest names it.
      const names = new Map<string, string>();
      for (const block of content) if (block.type === "tool_use") names.set(block.id, block.name);
      this.#content = content;
      this.#names = names;
    }
    return this.#names.get(toolUseId);
  }
}

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
  readonly #near = new NearCalls();
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
      const name = this.#near.name(near, toolUseId);
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

  /** Calls are read from the messages themselves, in order. */
  set(): void {}
}

/**
 * The tool names a writer of `messages`, in order, finds for each result: those a table of
 * every call it wrote before would give (the latest call with an id), without filling one for
 * every call. The writer tells the message it is at ({@link at}) and each call it writes
 * ({@link set}); a result's call is looked for among the calls written in that message so far,
 * then among those of the message before (where a result's call most often is), and in a table
 * of the messages before that only when both miss. The calls of those two messages are held as
 * they were told, in arrays kept from message to message: the messages' own contents are
 * frozen in a session, which V8 reads several times slower.
 */
export class WrittenCallNames implements ToolNames {
  /**
   * An instance alive as long as the class: V8 lets go of the hidden class of a class's
   * instances when none is alive at a full collection, and deoptimizes all code that met one.
   * The writer makes one per call: after each full collection, its next call ran unoptimized
   * (3x the time of a call with a `Map` of the names, in the bench's step, which collects
   * before each call).
   */
  static readonly kept = new WrittenCallNames([]);
  readonly #messages: readonly Message[];
  #position = 0;
  /** The calls written in the message at {@link #position}: ids and names, the first `#count`. */
  #ids: string[] = [];
  #names: string[] = [];
  #count = 0;
  /** The same of the message before it. */
  #idsBefore: string[] = [];
  #namesBefore: string[] = [];
  #countBefore = 0;
  #table: Map<string, string> | undefined;
  /** Messages before this index are in {@link #table}. */
  #upTo = 0;
  readonly #near = new NearCalls();

  constructor(messages: readonly Message[]) {
    this.#messages = messages;
  }

  /** The writer is at the message at `position`, right after the one before it. */
  at(position: number): void {
    const ids = this.#idsBefore;
    const names = this.#namesBefore;
    this.#idsBefore = this.#ids;
    this.#namesBefore = this.#names;
    this.#countBefore = position === this.#position + 1 ? this.#count : -1;
    this.#ids = ids;
    this.#names = names;
    this.#count = 0;
    this.#position = position;
  }

  /** A call of the message at hand was written. */
  set(toolUseId: string, name: string): void {
    this.#ids[this.#count] = toolUseId;
    this.#names[this.#count] = name;
    this.#count += 1;
  }

  get(toolUseId: string): string | undefined {
    const here = latestName(this.#ids, this.#names, this.#count, toolUseId);
    if (here !== undefined) return here;
    const position = this.#position;
    const count = this.#countBefore;
    if (count >= 0 && count <= SCANNED_BLOCKS) {
      const name = latestName(this.#idsBefore, this.#namesBefore, count, toolUseId);
      if (name !== undefined) return name;
    } else {
      // Many calls (or the writer skipped to here): the message before read, its calls in a table.
      const before = this.#messages[position - 1];
      const name = before === undefined ? undefined : this.#near.name(before.content, toolUseId);
      if (name !== undefined) return name;
    }
    this.#table ??= new Map();
    const table = this.#table;
    for (; this.#upTo < position - 1; this.#upTo += 1)
      for (const block of this.#messages[this.#upTo]!.content)
        if (block.type === "tool_use") table.set(block.id, block.name);
    return table.get(toolUseId);
  }
}

/** The name of the latest of the first `count` calls (`ids`, `names`) whose id is `toolUseId`. */
function latestName(
  ids: readonly string[],
  names: readonly string[],
  count: number,
  toolUseId: string,
): string | undefined {
  for (let index = count - 1; index >= 0; index -= 1)
    if (ids[index] === toolUseId) return names[index];
  return undefined;
}
