import type { ContentBlock, Message } from "../core/message.js";

/**
 * Whether `sends` holds for every block of a message and every part of its tool results: a
 * writing that leaves nothing of it out (a message it leaves something out of is written anew).
 */
export function sendsWhole(message: Message, sends: (block: ContentBlock) => boolean): boolean {
  for (const block of message.content) {
    if (!sends(block)) return false;
    if (block.type === "tool_result" && typeof block.content !== "string")
      for (const part of block.content) if (!sends(part)) return false;
  }
  return true;
}

/**
 * Where the messages of a one-call helper's conversion came from: for each, the span of the
 * caller's items (Anthropic messages, Responses items, …) it was read from, when written back
 * alone it gives those items again. The writer then hands back the caller's own items for a
 * message the compaction left as it was, instead of writing new ones: a stateless server's
 * request is mostly unchanged, and every object made is garbage collected.
 */
export class ItemOrigins<T> {
  readonly #items: readonly T[];
  /** The conversion's messages, once made. */
  #messages: readonly Message[] = [];
  /** By message index, its first item, then the index after its last (-1: none). */
  #spans: Int32Array;
  /** The message after the last one found: compaction keeps messages in order. */
  #next = 0;
  /** The index of each message, made only when one is not where {@link #next} expects it. */
  #byMessage: Map<Message, number> | undefined;
  /**
   * Whether writing the conversion's messages mends an item it read (a tool id the API refuses):
   * the caller's input is then never sent as it came.
   */
  mends = false;
  /**
   * Whether the conversion may share the caller's objects (tool inputs) instead of copying them:
   * only when nothing it makes outlives the call (no archive keeps what compaction removes; the
   * memory archive freezes what it keeps).
   */
  readonly sharesItems: boolean;

  constructor(items: readonly T[], sharesItems = true) {
    this.#items = items;
    this.sharesItems = sharesItems;
    // Conversions make about a message per item (a few more when one is split).
    this.#spans = new Int32Array(items.length * 2 + 2).fill(-1);
  }

  /** Notes that the message the conversion made at `index` came from the items `start` to `end` (exclusive), alone. */
  note(index: number, start: number, end: number): void {
    if (index * 2 + 1 >= this.#spans.length) {
      const grown = new Int32Array(index * 4 + 2).fill(-1);
      grown.set(this.#spans);
      this.#spans = grown;
    }
    this.#spans[index * 2] = start;
    this.#spans[index * 2 + 1] = end;
  }

  /**
   * Notes that the message the conversion made at `made` came from the item `item` alone, when
   * reading that item made just the one message (`after`: how many there are now; a summary's
   * item is read as two, neither of which gives it back alone).
   */
  noteRead(made: number, after: number, item: number): void {
    if (after === made + 1) this.note(made, item, item + 1);
  }

  /** The conversion's messages, as {@link made} set them. */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** Sets the conversion's messages (those {@link note} numbered), for a writing from the start. */
  made(messages: readonly Message[]): void {
    this.#messages = messages;
    this.#next = 0;
    this.#byMessage = undefined;
  }

  /**
   * Puts the items `message` came from into `out`, from `at` on, when it is one of the
   * conversion's messages, unchanged, with a span noted; the index after them, or -1 (nothing
   * put) otherwise.
   */
  put(message: Message, out: T[], at: number): number {
    const index = this.#indexOf(message);
    const start = index === -1 ? -1 : (this.#spans[index * 2] ?? -1);
    if (start === -1) return -1;
    const end = this.#spans[index * 2 + 1]!;
    const items = this.#items;
    let to = at;
    for (let from = start; from < end; from += 1) out[to++] = items[from]!;
    return to;
  }

  /** The index of `message` among the conversion's messages, -1 when it is not one of them. */
  #indexOf(message: Message): number {
    const messages = this.#messages;
    const next = this.#next;
    const expected = messages[next];
    if (expected === message) {
      this.#next = next + 1;
      return next;
    }
    // Changed where it stood (a masked result): the next one is after it.
    if (expected !== undefined && expected.id === message.id) {
      this.#next = next + 1;
      return -1;
    }
    // One the writer wrote without asking (a system message) stood before it.
    if (messages[next + 1] === message) {
      this.#next = next + 2;
      return next + 1;
    }
    this.#byMessage ??= new Map(messages.map((each, at) => [each, at]));
    const index = this.#byMessage.get(message);
    if (index === undefined) return -1;
    this.#next = index + 1;
    return index;
  }
}
