import type { ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";

/** The ids a conversation holds that messages joining it must not take again. */
export interface KnownIds {
  readonly messageIds: ReadonlySet<string>;
  /** The ids of its calls still waiting for their results. */
  readonly waitingToolUseIds: Iterable<string>;
}

/**
 * Issues for ids that repeat: a message id seen earlier in `messages`, and, for messages
 * joining a conversation whose ids are `known`, a message id it already holds, or a `tool_use`
 * id of a call still waiting for its result there or earlier in `messages`. A call's id may
 * come again once the call is answered: providers that number the calls of each reply
 * (`call_0` every time, as OpenAI-compatible hosts do) reuse them. Paths start at the
 * message's index in `messages`.
 */
export function duplicateIdIssues(
  messages: readonly Pick<Message, "id" | "content">[],
  known?: KnownIds,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const ids = new Set<string>();
  const waiting = new Set(known?.waitingToolUseIds);
  messages.forEach((message, index) => {
    if (ids.has(message.id) || known?.messageIds.has(message.id) === true)
      issues.push({ path: [index, "id"], message: `duplicate message id "${message.id}"` });
    ids.add(message.id);
    if (known === undefined) return;
    message.content.forEach((block, blockIndex) => {
      if (block.type === "tool_result") waiting.delete(block.toolUseId);
      if (block.type !== "tool_use") return;
      if (waiting.has(block.id)) {
        issues.push({
          path: [index, "content", blockIndex, "id"],
          message: `duplicate tool_use id "${block.id}" (its call waits)`,
        });
      }
      waiting.add(block.id);
    });
  });
  return issues;
}

/** Probes allowed per id before {@link DistinctIds} leaves a crowded table for a `Set`. */
const MAX_PROBES_PER_ID = 4;

/**
 * Whether the ids of messages differ, told one message at a time (`add`, in any order, each
 * index once): the check of every message a stateless server is sent, made while each message
 * is at hand. An open-addressing table of message indexes by a hash of the id (a third of what
 * a `Set` of the ids costs). Ids made to collide cannot make it slow: past a few probes per id
 * it answers with a `Set`.
 */
export class DistinctIds {
  readonly #messages: readonly { id: string }[];
  /** Each slot holds a message's index + 1; 0 is empty. */
  readonly #table: Int32Array;
  #probes = 0;
  #added = 0;
  #set: Set<string> | undefined;

  constructor(messages: readonly { id: string }[]) {
    this.#messages = messages;
    let size = 16;
    while (size < messages.length * 2) size *= 2;
    this.#table = new Int32Array(size);
  }

  /** Takes the message at `index`: `false` when its id is one taken before. */
  add(index: number): boolean {
    const id = this.#messages[index]!.id;
    this.#added += 1;
    if (this.#set !== undefined) return this.#setAdd(id);
    const table = this.#table;
    const mask = table.length - 1;
    let slot = hashOf(id) & mask;
    for (let held = table[slot]!; held !== 0; held = table[slot]!) {
      if (this.#messages[held - 1]!.id === id) return false;
      this.#probes += 1;
      if (this.#probes > MAX_PROBES_PER_ID * this.#messages.length) return this.#crowded(index);
      slot = (slot + 1) & mask;
    }
    table[slot] = index + 1;
    return true;
  }

  /** Leaves the table: the ids taken so far (and this one) in a `Set`. */
  #crowded(index: number): boolean {
    this.#set = new Set();
    for (const held of this.#table) if (held !== 0) this.#set.add(this.#messages[held - 1]!.id);
    return this.#setAdd(this.#messages[index]!.id);
  }

  #setAdd(id: string): boolean {
    const set = this.#set!;
    if (set.has(id)) return false;
    set.add(id);
    return true;
  }
}

/** Whether the ids of `messages` all differ (see {@link DistinctIds}). */
export function idsDistinct(messages: readonly { id: string }[]): boolean {
  const ids = new DistinctIds(messages);
  for (let index = 0; index < messages.length; index += 1) if (!ids.add(index)) return false;
  return true;
}

/** FNV-1a over the string's UTF-16 code units. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash;
}
