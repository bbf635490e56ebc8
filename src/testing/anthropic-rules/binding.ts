import {
  type Block,
  type Body,
  blocksOf,
  fromBase64Url,
  hashText,
  hexToBase64Url,
  isRecord,
  longHash,
  messagesOf,
  toBase64Url,
  type WireMessage,
} from "./wire.js";

/**
 * What a thinking or compaction block the server signed is bound to, and its signature: the
 * binding and a keyed hash of it ({@link hashText}: no Node built-in), so an edit shows and
 * the stand-in and the loopback server read each other's blocks. The fingerprint and the keyed
 * hash are as long as the SHA-256 ones the loopback server wrote with `node:crypto`, so the
 * token counts its tests and the benchmark measure stay where they were. The rule, from the
 * platform docs (sources at the top of `thinking.ts`):
 *
 * 1. What a block is bound to. "The checked prefix has three parts: the top-level `system`
 *    prompt, the set of `tools`, every `message` before the block." "Earlier thinking blocks
 *    aren't in the prefix, but each thinking block records which thinking block came before
 *    it, across turns." So the signature holds a hash of `system`, of the tool set, of every
 *    message before the block (and the blocks before it in its own message) with thinking
 *    blocks left out, and the block that came before it. Not part of the prefix: "request
 *    parameters outside those three fields (`effort`, `max_tokens`, `output_config`,
 *    `tool_choice`, `metadata`…)", "`cache_control` markers", "a tool with `defer_loading:
 *    true` that nothing has referenced yet" (a `tool_addition` block references it), and,
 *    with server-side compaction, what comes before the latest `compaction` block ("the
 *    checked prefix starts at the most recent compaction block"). A block written by an
 *    on-demand compaction request (`compaction.ts`) stands for the messages it summarized:
 *    "the check accepts the swap when the API wrote the summary", so the messages are hashed as
 *    a chain and the block's signature records the chain's state after them; the kept turns that
 *    follow it unchanged continue that state and their thinking stays valid, unless the first of
 *    them is a system message or has the last summarized message's role (the API merges it), or
 *    `system` or the tools differ from the compaction request's. The check compares what the
 *    model reads, so a `null` field counts as absent and a string `content` as one text block.
 *    The tool set is a set: reordering `tools` is no edit.
 */

const SECRET = "agent-compaction stand-in thinking secret";
const TOKEN_PREFIX = "sti1";

/** The kinds of signed thinking block. */
export type ThinkingBlockType = "thinking" | "redacted_thinking";

/** Whether a block is a `thinking` or `redacted_thinking` block. */
export function isThinkingBlock(block: unknown): block is Block & { type: ThinkingBlockType } {
  return isRecord(block) && (block["type"] === "thinking" || block["type"] === "redacted_thinking");
}

/** The JSON the model reads: keys sorted, `null` and `cache_control` left out. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = value[key];
    if (field === null || field === undefined || key === "cache_control") continue;
    out[key] =
      key === "content" && value["type"] === "tool_result" && typeof field === "string"
        ? [{ type: "text", text: field }]
        : canonical(field);
  }
  return out;
}

function digest(value: unknown): string {
  return hashText(JSON.stringify(canonical(value)));
}

function systemDigest(system: unknown): string {
  return digest(typeof system === "string" ? [{ type: "text", text: system }] : (system ?? []));
}

/** A link of the message chain: the state after `state`, then `message`. */
function link(state: string, message: WireMessage): string {
  return hashText(`${state}\n${JSON.stringify(canonical(message))}`);
}

/**
 * The digest of a list of messages, as a chain: each message's link hashes the state before it,
 * so a list that continues another from its state (a `compaction` block standing for the
 * messages it summarized) gets the digest the whole list would have.
 */
export function chainDigest(messages: readonly WireMessage[], start = ""): string {
  let state = start;
  for (const message of messages) state = link(state, message);
  return state;
}

const withoutThinking = (message: WireMessage): WireMessage => ({
  ...message,
  content: (message.content as unknown[]).filter((block) => !isThinkingBlock(block)),
});

/** Where a run of messages starts: the chain state it continues, and the messages after it. */
interface CheckedPrefix {
  start: string;
  messages: WireMessage[];
}

/**
 * The checked prefix before block `blockIndex` of message `messageIndex` (`messageIndex` =
 * `messages.length` for the whole request): the messages before it, and the blocks before it in
 * its own message. It starts at the most recent `compaction` block: a block this server signed on
 * a compaction request continues the chain of the messages it summarized (see
 * {@link compactionContinuation}); any other (threshold compaction) starts a chain of its own.
 */
function checkedPrefix(
  body: Body,
  messages: readonly WireMessage[],
  messageIndex: number,
  blockIndex: number,
): CheckedPrefix {
  const prefix: WireMessage[] = messages.slice(0, messageIndex).map((message) => ({
    ...message,
    content: blocksOf(message),
  }));
  const hasOwn = messageIndex < messages.length;
  if (hasOwn) {
    const own = messages[messageIndex];
    prefix.push({ ...own, role: own?.role, content: blocksOf(own).slice(0, blockIndex) });
  }
  for (let index = prefix.length - 1; index >= 0; index -= 1) {
    const blocks = prefix[index]!.content as unknown[];
    let at = -1;
    for (let block = blocks.length - 1; block >= 0 && at === -1; block -= 1) {
      if (isRecord(blocks[block]) && (blocks[block] as Block)["type"] === "compaction") at = block;
    }
    if (at === -1) continue;
    const continuation = compactionContinuation(blocks[at] as Block, body);
    if (continuation === undefined) {
      return {
        start: "",
        messages: [{ ...prefix[index]!, content: blocks.slice(at) }, ...prefix.slice(index + 1)],
      };
    }
    // The block stands where the summarized messages were; what follows it continues them.
    const restBlocks = blocks.slice(at + 1);
    const rest: WireMessage = { ...prefix[index]!, content: restBlocks };
    const keepRest = restBlocks.length > 0 || (hasOwn && index === prefix.length - 1);
    const after = [...(keepRest ? [rest] : []), ...prefix.slice(index + 1)];
    return { start: continuation(after[0]), messages: after };
  }
  return { start: "", messages: prefix };
}

/** The digest of the checked prefix before a block, thinking left out. */
function prefixDigest(
  body: Body,
  messages: readonly WireMessage[],
  messageIndex: number,
  blockIndex: number,
): { digest: string; prefix: WireMessage[] } {
  const { start, messages: prefix } = checkedPrefix(body, messages, messageIndex, blockIndex);
  return { digest: chainDigest(prefix.map(withoutThinking), start), prefix };
}

/** The tool set: sorted by name, deferred tools left out until a `tool_addition` names them. */
function toolsDigest(tools: unknown, prefix: readonly WireMessage[]): string {
  const added = new Set<string>();
  for (const message of prefix) {
    for (const block of message.content as unknown[]) {
      if (isRecord(block) && block["type"] === "tool_addition" && isRecord(block["tool"])) {
        added.add(String(block["tool"]["name"]));
      }
    }
  }
  const list = (Array.isArray(tools) ? tools : []).filter(
    (tool) =>
      !(isRecord(tool) && tool["defer_loading"] === true && !added.has(String(tool["name"]))),
  );
  const keyed = list.map((tool) => [
    isRecord(tool) ? String(tool["name"] ?? "") : "",
    JSON.stringify(canonical(tool)),
  ]);
  keyed.sort(([a, x], [b, y]) => (a! < b! ? -1 : a! > b! ? 1 : x! < y! ? -1 : x! > y! ? 1 : 0));
  return digest(keyed.map(([, json]) => json));
}

/** What a `compaction` block this server signed records: what it summarized, and after what. */
export interface CompactionBinding {
  /** Hashes of the compaction request's `system` and (non-deferred) tool set. */
  s: string;
  t: string;
  /** The chain state after the summarized messages (thinking left out): kept turns continue it. */
  c: string;
  /** The role of the last summarized message. */
  r: string;
  /** A hash of the block's `content`. */
  h: string;
}

const COMPACTION_TOKEN_PREFIX = "stic1";

function contentHash(content: unknown): string {
  return hashText(JSON.stringify(content ?? null));
}

/**
 * The signature of a `compaction` block summarizing every message of `body` (a compaction
 * request): bound to its `system`, tools and messages, so the kept turns that follow the block
 * unchanged continue the summarized prefix.
 */
export function signCompaction(body: unknown, content: string): string {
  const request = (isRecord(body) ? body : {}) as Body;
  const messages = messagesOf(request);
  const { digest: c } = prefixDigest(request, messages, messages.length, 0);
  const binding: CompactionBinding = {
    s: systemDigest(request.system),
    t: toolsDigest(request.tools, []),
    c,
    r: String(messages.at(-1)?.role ?? ""),
    h: contentHash(content),
  };
  const payload = toBase64Url(JSON.stringify(binding));
  return `${COMPACTION_TOKEN_PREFIX}.${payload}.${mac("compaction", payload, "")}`;
}

/** What a `compaction` block sent back is: signed here and intact, edited, or not ours. */
export type CompactionBlockReading =
  | { kind: "ours"; binding: CompactionBinding }
  /** The signature is this server's and intact, but `content` changed. */
  | { kind: "content_mismatch" }
  /** The signature was changed, or is not one this server wrote. */
  | { kind: "signature_invalid" };

/** Reads a `compaction` block's signature (and checks its content against it). */
export function readCompactionBlock(block: Record<string, unknown>): CompactionBlockReading {
  const signature = block["signature"];
  if (typeof signature !== "string") return { kind: "signature_invalid" };
  const parts = signature.split(".");
  if (parts.length !== 3 || parts[0] !== COMPACTION_TOKEN_PREFIX) {
    return { kind: "signature_invalid" };
  }
  if (mac("compaction", parts[1]!, "") !== parts[2]) return { kind: "signature_invalid" };
  let binding: CompactionBinding;
  try {
    binding = JSON.parse(fromBase64Url(parts[1]!)) as CompactionBinding;
  } catch {
    return { kind: "signature_invalid" };
  }
  if (contentHash(block["content"]) !== binding.h) return { kind: "content_mismatch" };
  return { kind: "ours", binding };
}

/**
 * How the chain continues after a `compaction` block this server signed, given the first
 * message kept after it: from the state of the summarized messages, as long as the docs'
 * conditions hold ("The first kept message must also have a different role from the last
 * summarized message, and it can't be a mid-conversation `role: "system"` message. Otherwise,
 * the API merges it into the last summarized message"; "`system` and the `tools` not marked
 * `defer_loading: true` don't change"). Otherwise from a state no thinking was bound to.
 * `undefined` for a block not signed here (a threshold compaction's): its chain starts afresh.
 */
function compactionContinuation(
  block: Block,
  body: Body,
): ((first: WireMessage | undefined) => string) | undefined {
  const read = readCompactionBlock(block);
  if (read.kind !== "ours") return undefined;
  const { s, t, c, r } = read.binding;
  return (first) => {
    let start = c;
    if (systemDigest(body.system) !== s || toolsDigest(body.tools, []) !== t) {
      start = `changed:${start}`;
    }
    if (first !== undefined && (first.role === r || first.role === "system")) {
      start = `merged:${start}`;
    }
    return start;
  };
}

/** What a thinking block is bound to (carried in its signature). */
export interface Binding {
  /** Hashes of `system`, the tool set and the messages before the block. */
  s: string;
  t: string;
  m: string;
  /** The fingerprint of the thinking block before it, or null. */
  p: string | null;
  /** A redacted block's hidden reasoning. */
  x?: string;
}

/** The binding of the block at `[message, block]` of a request (its `p` left for the caller). */
export function bindingAt(
  body: Body,
  messages: readonly WireMessage[],
  at: [number, number],
): Binding {
  const { digest: m, prefix } = prefixDigest(body, messages, at[0], at[1]);
  return { s: systemDigest(body.system), t: toolsDigest(body.tools, prefix), m, p: null };
}

/** A keyed hash of a signature's parts: 43 characters, as long as a SHA-256 HMAC in base64url. */
function mac(type: string, payload: string, thinking: string): string {
  return hexToBase64Url(longHash(`${SECRET}\n${type}\n${payload}\n${thinking}`));
}

/** The signature of a thinking block: its binding, and a keyed hash of binding and text. */
export function token(type: ThinkingBlockType, binding: Binding, thinking: string): string {
  const payload = toBase64Url(JSON.stringify(binding));
  return `${TOKEN_PREFIX}.${payload}.${mac(type, payload, thinking)}`;
}

/** What a block's signature (or `data`) says: ours and intact, someone else's, or tampered. */
export function readToken(
  block: Block & { type: ThinkingBlockType },
): { kind: "ours"; binding: Binding } | { kind: "foreign" } | { kind: "tampered" } {
  const value = block.type === "thinking" ? block["signature"] : block["data"];
  if (typeof value !== "string") return { kind: "tampered" };
  const parts = value.split(".");
  if (parts[0] !== TOKEN_PREFIX) return { kind: "foreign" };
  if (parts.length !== 3) return { kind: "tampered" };
  let binding: Binding;
  try {
    binding = JSON.parse(fromBase64Url(parts[1]!)) as Binding;
  } catch {
    return { kind: "tampered" };
  }
  const thinking = block.type === "thinking" ? block["thinking"] : "";
  if (typeof thinking !== "string" || mac(block.type, parts[1]!, thinking) !== parts[2]) {
    return { kind: "tampered" };
  }
  return { kind: "ours", binding };
}

/** A thinking block's identity, as the block after it records it. */
export function fingerprint(block: Block): string {
  const value = block["type"] === "thinking" ? block["signature"] : block["data"];
  return longHash(`${String(block["type"])}:${String(value)}`);
}
