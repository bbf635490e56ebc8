import type { ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";

/** The ids a conversation holds. */
export interface KnownIds {
  readonly messageIds: ReadonlySet<string>;
  readonly toolUseIds: ReadonlySet<string>;
}

/**
 * Issues for ids that repeat: a message id seen earlier in `messages`, and, for messages
 * joining a conversation whose ids are `known`, a message or `tool_use` id it already holds or
 * seen earlier in `messages`. Paths start at the message's index in `messages`.
 */
export function duplicateIdIssues(
  messages: readonly Pick<Message, "id" | "content">[],
  known?: KnownIds,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const ids = new Set<string>();
  const toolUseIds = new Set<string>();
  messages.forEach((message, index) => {
    if (ids.has(message.id) || known?.messageIds.has(message.id) === true)
      issues.push({ path: [index, "id"], message: `duplicate message id "${message.id}"` });
    ids.add(message.id);
    if (known === undefined) return;
    message.content.forEach((block, blockIndex) => {
      if (block.type !== "tool_use") return;
      if (toolUseIds.has(block.id) || known.toolUseIds.has(block.id)) {
        issues.push({
          path: [index, "content", blockIndex, "id"],
          message: `duplicate tool_use id "${block.id}" (\`tool_use\` ids must be unique)`,
        });
      }
      toolUseIds.add(block.id);
    });
  });
  return issues;
}

/** Probes allowed per id before {@link idsDistinct} leaves a crowded table for a `Set`. */
const MAX_PROBES_PER_ID = 4;

/**
 * Whether the ids of `messages` all differ. The check of every message a stateless server is
 * sent: an open-addressing table of message indexes by a hash of the id (a third of what a
 * `Set` of the ids costs). Ids made to collide cannot make it slow: past a few probes per id
 * it answers with a `Set`.
 */
export function idsDistinct(messages: readonly { id: string }[]): boolean {
  let size = 16;
  while (size < messages.length * 2) size *= 2;
  // Each slot holds a message's index + 1; 0 is empty.
  const table = new Int32Array(size);
  const mask = size - 1;
  let probes = 0;
  for (let index = 0; index < messages.length; index += 1) {
    const id = messages[index]!.id;
    let slot = hashOf(id) & mask;
    for (let held = table[slot]!; held !== 0; held = table[slot]!) {
      if (messages[held - 1]!.id === id) return false;
      probes += 1;
      if (probes > MAX_PROBES_PER_ID * messages.length) return idsDistinctBySet(messages);
      slot = (slot + 1) & mask;
    }
    table[slot] = index + 1;
  }
  return true;
}

function idsDistinctBySet(messages: readonly { id: string }[]): boolean {
  const ids = new Set<string>();
  for (const message of messages) ids.add(message.id);
  return ids.size === messages.length;
}

/** FNV-1a over the string's UTF-16 code units. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash;
}
