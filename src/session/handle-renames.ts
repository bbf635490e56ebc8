import type { ArchiveRecord } from "../core/archive-record.js";
import type { ContentBlock, Message } from "../core/message.js";
import { isSummaryTurn } from "../core/turn.js";
import { spreadWith } from "../internal/plain-object.js";

/** The mark a placeholder names a handle with (without the space before it). */
const markOf = (handle: string) => `[recall ${handle}]`;

/** One rename: the mark as written, and as it must read. */
type Rename = readonly [from: string, to: string];

/**
 * `conversation` with the placeholders of `records` whose handles `renamed` maps (old to new)
 * naming the new handle: a content handle the archive already held for other content (a hash's
 * collision) moved to a variant when the records were kept (`ArchiveKeeper.storeMissing`).
 * Only the blocks a record's placeholder lives in are read: its tool result, its tool input's
 * note, or, for messages, the library's summary-turn messages and the message a clamp cut.
 * A new array (the messages without a renamed placeholder the same objects).
 */
export function renameHandles(
  conversation: readonly Message[],
  records: readonly ArchiveRecord[],
  renamed: ReadonlyMap<string, string>,
): Message[] {
  return rewriteMarks(conversation, records, (handle) => {
    const to = renamed.get(handle);
    return to === undefined ? undefined : [markOf(handle), markOf(to)];
  });
}

/**
 * `conversation` without the marks of `records` (the archive never got them): each
 * placeholder reads as one made without an archive.
 */
export function dropHandles(
  conversation: readonly Message[],
  records: readonly ArchiveRecord[],
): Message[] {
  return rewriteMarks(conversation, records, (handle) => [` ${markOf(handle)}`, ""]);
}

/** `conversation` with each record's mark rewritten as `rename` says (`undefined`: left). */
function rewriteMarks(
  conversation: readonly Message[],
  records: readonly ArchiveRecord[],
  renameOf: (handle: string) => Rename | undefined,
): Message[] {
  const results = new Map<string, Rename>();
  const inputs = new Map<string, Rename>();
  const texts: Rename[] = [];
  const owners = new Set<string>();
  for (const record of records) {
    const rename = renameOf(record.handle);
    if (rename === undefined) continue;
    if (record.kind === "tool_result") results.set(record.toolUseId, rename);
    else if (record.kind === "tool_input") inputs.set(record.toolUseId, rename);
    else {
      texts.push(rename);
      for (const message of record.original) owners.add(message.id);
    }
  }
  return conversation.map((message) => {
    const ownsTexts = texts.length > 0 && (isSummaryTurn(message.turnId) || owners.has(message.id));
    let changed = false;
    const content = message.content.map((block) => {
      const next = renamedBlock(block, results, inputs, ownsTexts ? texts : []);
      if (next !== block) changed = true;
      return next;
    });
    return changed ? ({ ...message, content } as Message) : message;
  });
}

function renamedBlock(
  block: ContentBlock,
  results: ReadonlyMap<string, Rename>,
  inputs: ReadonlyMap<string, Rename>,
  texts: readonly Rename[],
): ContentBlock {
  if (block.type === "tool_result") {
    const rename = results.get(block.toolUseId);
    if (rename === undefined) return block;
    const { content } = block;
    return spreadWith(block, {
      content:
        typeof content === "string"
          ? replaced(content, [rename])
          : content.map((part) =>
              part.type === "text" ? { ...part, text: replaced(part.text, [rename]) } : part,
            ),
    });
  }
  if (block.type === "tool_use") {
    const rename = inputs.get(block.id);
    const note = block.input["_cleared"];
    if (rename === undefined || typeof note !== "string") return block;
    return { ...block, input: { ...block.input, _cleared: replaced(note, [rename]) } };
  }
  if (block.type === "text" && texts.length > 0) {
    const text = replaced(block.text, texts);
    return text === block.text ? block : { ...block, text };
  }
  return block;
}

/** `text` with each rename's mark replaced (split and joined: linear, whatever the text holds). */
function replaced(text: string, renames: readonly Rename[]): string {
  let out = text;
  for (const [from, to] of renames) if (out.includes(from)) out = out.split(from).join(to);
  return out;
}
