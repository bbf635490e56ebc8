import { createHash } from "node:crypto";

/**
 * A request as the Messages API reads it, and the two checks the real-runs part makes of each:
 * pairing (what the API rejects with a 400) and the preserved-thinking prefix (a thinking block
 * whose system prompt or earlier content changed since the model wrote it).
 */

/** A content block on the wire. */
export type WireBlock = Record<string, unknown>;

/** A message on the wire, as `toAnthropicMessages` builds it. */
export interface WireMessage {
  role: string;
  content: string | readonly WireBlock[];
}

/** A message as the API reads it: blocks only, same-role neighbours merged. */
export interface CanonicalMessage {
  role: string;
  content: WireBlock[];
}

/** A message's content as blocks (a string is one text block). */
export function wireBlocks(message: WireMessage): readonly WireBlock[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : message.content;
}

function withoutCacheControl(block: WireBlock): WireBlock {
  if (!("cache_control" in block)) return block;
  const { cache_control: _, ...rest } = block;
  return rest;
}

/** The API's view of `messages`: same-role neighbours merged, no `cache_control`. */
export function canonical(messages: readonly WireMessage[]): CanonicalMessage[] {
  const merged: CanonicalMessage[] = [];
  for (const message of messages) {
    const content = wireBlocks(message).map(withoutCacheControl);
    const last = merged.at(-1);
    if (last !== undefined && last.role === message.role) last.content.push(...content);
    else merged.push({ role: message.role, content: [...content] });
  }
  return merged;
}

const idsOf = (blocks: readonly WireBlock[] | undefined, type: string, key: string) =>
  new Set((blocks ?? []).filter((block) => block["type"] === type).map((block) => block[key]));

/** A user message's problems: results that answer no call just before, or follow other blocks. */
function userProblems(message: CanonicalMessage, previous: CanonicalMessage | undefined): string[] {
  const problems: string[] = [];
  const uses = idsOf(previous?.content, "tool_use", "id");
  let other = false;
  for (const block of message.content) {
    const id = String(block["tool_use_id"]);
    if (block["type"] === "tool_result" && !uses.has(block["tool_use_id"]))
      problems.push(`orphan result ${id}`);
    if (block["type"] === "tool_result" && other) problems.push(`result after text ${id}`);
    if (block["type"] !== "tool_result") other = true;
  }
  return problems;
}

/**
 * What the Messages API would reject in `messages`: no messages, a first message not the
 * user's, an empty message, a tool result with no call just before it or after other blocks,
 * a tool call the next message does not answer.
 */
export function apiProblems(messages: readonly WireMessage[]): string[] {
  const merged = canonical(messages);
  if (merged.length === 0) return ["empty"];
  const problems: string[] = [];
  if (merged[0]!.role !== "user") problems.push("first message not user");
  merged.forEach((message, index) => {
    if (message.content.length === 0) problems.push(`message ${index} empty`);
    if (message.role === "user") {
      problems.push(...userProblems(message, merged[index - 1]));
      return;
    }
    const next = merged[index + 1];
    if (next === undefined) return;
    const answered = idsOf(next.content, "tool_result", "tool_use_id");
    for (const block of message.content)
      if (block["type"] === "tool_use" && !answered.has(block["id"]))
        problems.push(`unanswered ${String(block["id"])}`);
  });
  return problems;
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 24);

/** A thinking block of a request and a digest of everything before it. */
export interface ThinkingPrefix {
  /** The block: its signature and text. */
  key: string;
  prefix: string;
}

/**
 * For each thinking block of `messages` (canonical), the digest of what precedes it: the
 * system prompt, the messages before, and the blocks before it in its own message.
 */
export function thinkingPrefixes(
  messages: readonly CanonicalMessage[],
  system: string,
): ThinkingPrefix[] {
  const found: ThinkingPrefix[] = [];
  let rolling = digest(JSON.stringify({ system }));
  for (const message of messages) {
    let inner = rolling + message.role;
    for (const block of message.content) {
      if (block["type"] === "thinking" || block["type"] === "redacted_thinking") {
        const text = block["thinking"] ?? block["data"] ?? "";
        found.push({
          key: `${String(block["signature"] ?? "")}|${String(text)}`,
          prefix: digest(inner),
        });
      }
      inner = digest(inner + JSON.stringify(block));
    }
    rolling = digest(rolling + JSON.stringify(message));
  }
  return found;
}

/**
 * The preserved-thinking check over a run: each thinking block is bound to the prefix it was
 * produced after; a later request that sends it after a different prefix fails.
 */
export class ThinkingBindings {
  readonly #bound = new Map<string, string>();

  /** Binds the thinking blocks of `messages` not bound yet (after a reply is appended). */
  bind(messages: readonly WireMessage[], system: string): void {
    for (const { key, prefix } of thinkingPrefixes(canonical(messages), system))
      if (!this.#bound.has(key)) this.#bound.set(key, prefix);
  }

  /** The thinking blocks of a request sent after a prefix other than their own. */
  failures(messages: readonly WireMessage[], system: string): number {
    let failed = 0;
    for (const { key, prefix } of thinkingPrefixes(canonical(messages), system)) {
      const bound = this.#bound.get(key);
      if (bound !== undefined && bound !== prefix) failed += 1;
    }
    return failed;
  }
}
