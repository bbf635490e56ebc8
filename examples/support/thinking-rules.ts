import { createHash, createHmac } from "node:crypto";

/**
 * Preserved thinking, as the loopback Messages API enforces it: how the server signs the
 * `thinking` / `redacted_thinking` blocks it returns, and the checks it runs on the ones sent
 * back. The same checks run offline through {@link checkThinkingPrefix} and
 * {@link thinkingProblems}, without HTTP.
 *
 * The rules, settled from the platform docs (read 2026-12 through stored mirrors):
 * - Preserved thinking: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
 * - Prefix checks: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks
 * - Fix a thinking block bound to a different conversation:
 *   https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation
 * - Thinking in tool workflows: https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows
 * - The SDK's own types (`@anthropic-ai/sdk` 1.14, `resources/beta/messages`).
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
 *    on-demand compaction request (`compaction-rules.ts`) stands for the messages it summarized:
 *    "the check accepts the swap when the API wrote the summary", so the messages are hashed as
 *    a chain and the block's signature records the chain's state after them; the kept turns that
 *    follow it unchanged continue that state and their thinking stays valid, unless the first of
 *    them is a system message or has the last summarized message's role (the API merges it), or
 *    `system` or the tools differ from the compaction request's. The check compares what the
 *    model reads, so a `null` field counts as absent and a string `content` as one text block.
 *    The tool set is a set: reordering `tools` is no edit.
 * 2. Valid: appending messages; "Remove `thinking` blocks from the start of the history" (a
 *    leading run, oldest first), so an assistant turn whose thinking was all removed is valid
 *    when every thinking block before it was removed too; removing every thinking block after
 *    an edit (nothing left to fail; the FAQ's fix for client-side compaction: "Strip `thinking`
 *    and `redacted_thinking` blocks from the turns you carry across"); an assistant message
 *    without thinking ("an appended message like any other").
 * 3. Invalid: "Edit, reorder, or delete any earlier `user`, `assistant`, or `system` message";
 *    "Change the top-level `system` string or blocks"; "Add, remove, rename, or edit a tool in
 *    `tools`"; "Remove a `thinking` block from the middle of the history and keep later ones:
 *    Invalid for every later thinking block" ("It also fails if a thinking block between others
 *    was left out or moved"). "If the prefix differs from what you sent when the block was
 *    produced, that block and every later thinking block are invalid." Every later block means
 *    every block produced before the edit: "An edit only invalidates thinking already after it";
 *    thinking the model produces after a drop "follows the summary and stays valid". So a block
 *    is checked against the last block the request keeps before it, and a reply's blocks
 *    record the last block the model was shown.
 * 4. What happens. `thinking.block_binding.prefix_mismatch_behavior`: `"error"` (default) "the
 *    API rejects the request with a 400 `invalid_request_error` that names the first failing
 *    block", in these words: "messages.1.content.0: Invalid `signature` in `thinking` block.
 *    The block is bound to a different conversation. Remove the block, or set
 *    `thinking.block_binding.prefix_mismatch_behavior` to "drop_block"." Without the beta
 *    header it continues "That setting requires the `thinking-binding-controls-2026-08-01`
 *    value in the `anthropic-beta` header." and "usually ends with a sentence naming what
 *    changed". `"drop_block"`: "the API drops each failing block and every thinking block after
 *    it, and the request succeeds", each listed in `input_transformations` as `{ type:
 *    "thinking_dropped", path: "messages.i.content.j", reason: "prefix_binding_mismatch" }`.
 *    The field and the array need the beta header `thinking-binding-controls-2026-08-01`
 *    ("Sending it without the beta header returns a 400 error"); with the header every
 *    response carries the array, `[]` when nothing was dropped. Accounts created before
 *    2026-08-31 are checked only when the request sets the field (`"opt-in"` mode here):
 *    otherwise the blocks are shown all the same and listed as `thinking_mismatch_allowed`.
 *    "A tampered or undecryptable signature is a different failure. It always returns a 400
 *    (Invalid `signature` in `thinking` block with no sentence about the conversation)."
 *    A block the model cannot read (here: a signature this server did not write) is dropped
 *    "without an error", reported as `model_binding_mismatch`. The token counting endpoint
 *    "runs the same prefix check and returns the same 400". `redacted_thinking` blocks carry
 *    their binding in `data` and are checked the same way.
 * 5. The tool loop. "Pass thinking blocks back complete and unmodified: when you return a tool
 *    result, the thinking blocks from the assistant message must come back with it" ("The
 *    round-trip rules are identical" for adaptive and manual thinking). On the wire: "When
 *    `thinking` is enabled, a final `assistant` message must start with a thinking block
 *    (preceeding the lastmost set of `tool_use` and `tool_result` blocks)". So while thinking
 *    is on and the request answers the last assistant message's `tool_use` blocks, that message
 *    must start with a `thinking` or `redacted_thinking` block (checked as sent, before drops).
 *    The loopback model thinks first on every reply while thinking is on, so a missing block
 *    there was removed by the client.
 */

/** The beta that adds `thinking.block_binding` and the response's `input_transformations`. */
export const THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01";

/** How the server runs the prefix check (an account's age, or a model without the check). */
export type PreservedThinkingMode =
  /** Every request is checked; `"error"` unless the request says `"drop_block"`. */
  | "enforced"
  /** Only requests that set `prefix_mismatch_behavior` (an account created before 2026-08-31). */
  | "opt-in"
  /** Nothing is checked (a model without preserved thinking). */
  | "off";

/** Why a thinking block sent back was not accepted. */
export type ThinkingFailureReason =
  /** Tampered or malformed: always a 400, whatever `prefix_mismatch_behavior` says. */
  | "signature_invalid"
  /** Written by a model this one cannot read: dropped without an error. */
  | "model_binding_mismatch"
  /** Something before the block changed since the block was produced. */
  | "prefix_binding_mismatch";

/** What changed before a block that fails the prefix check. */
export type ThinkingPrefixChange = "system" | "tools" | "messages" | "earlier_thinking";

/** One thinking block that fails a check. */
export interface ThinkingFailure {
  /** `messages.{i}.content.{j}`, as the API's errors and `input_transformations` write it. */
  path: string;
  messageIndex: number;
  blockIndex: number;
  type: "thinking" | "redacted_thinking";
  reason: ThinkingFailureReason;
  /** For a prefix mismatch: the first part of the prefix that differs. */
  changed?: ThinkingPrefixChange;
  /** The 400's message in the API's words (for a prefix mismatch, as sent with the beta header). */
  message: string;
}

/** One entry of a response's `input_transformations`. */
export interface InputTransformation {
  type: "thinking_dropped" | "thinking_mismatch_allowed";
  path: string;
  reason: "model_binding_mismatch" | "prefix_binding_mismatch";
}

/** The parts of a request the checks read. */
export interface ThinkingRequest {
  /** The request body as JSON. */
  body: unknown;
  /** Request headers, names in lower case (`anthropic-beta` is read). */
  headers?: Readonly<Record<string, string>>;
}

/** Options of the checks. */
export interface ThinkingRuleOptions {
  /** @default "enforced" */
  mode?: PreservedThinkingMode;
  /** Whether a request that sets no `thinking` thinks (current models do). @default false */
  thinkByDefault?: boolean;
}

/** What the server does with a request, thinking-wise. */
export type ThinkingVerdict =
  | { ok: false; message: string }
  | {
      ok: true;
      /** Blocks removed before the model reads the prompt. */
      dropped: ThinkingFailure[];
      /** The response's `input_transformations`; only with the beta header. */
      inputTransformations?: InputTransformation[];
      /** The last thinking block the model is shown: what a reply's first block records. */
      previous: string | null;
      /** Whether the model thinks on this request. */
      thinking: boolean;
    };

type Block = Record<string, unknown>;
type WireMessage = { role?: unknown; content?: unknown } & Record<string, unknown>;
type Body = { system?: unknown; tools?: unknown; messages?: unknown; thinking?: unknown };

const SECRET = "agent-compaction loopback thinking secret";
const TOKEN_PREFIX = "lbk1";

const CHANGED: Record<ThinkingPrefixChange, string> = {
  system: "The `system` prompt differs from when the block was created.",
  tools: "The `tools` list differs from when the block was created.",
  messages: "A message before the block differs from when the block was created.",
  earlier_thinking: "A thinking block before it was left out or moved.",
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isThinkingBlock(block: unknown): block is Block & { type: ThinkingFailure["type"] } {
  return isRecord(block) && (block.type === "thinking" || block.type === "redacted_thinking");
}

function messagesOf(body: Body): WireMessage[] {
  return Array.isArray(body.messages) ? (body.messages as WireMessage[]) : [];
}

function blocksOf(message: WireMessage | undefined): unknown[] {
  if (message === undefined) return [];
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
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
      key === "content" && value.type === "tool_result" && typeof field === "string"
        ? [{ type: "text", text: field }]
        : canonical(field);
  }
  return out;
}

function digest(value: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(canonical(value)))
    .digest("hex")
    .slice(0, 32);
}

function systemDigest(system: unknown): string {
  return digest(typeof system === "string" ? [{ type: "text", text: system }] : (system ?? []));
}

/** A link of the message chain: the state after `state`, then `message`. */
function link(state: string, message: WireMessage): string {
  return createHash("sha256")
    .update(`${state}\n${JSON.stringify(canonical(message))}`)
    .digest("hex")
    .slice(0, 32);
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
      if (isRecord(blocks[block]) && (blocks[block] as Block).type === "compaction") at = block;
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
      if (isRecord(block) && block.type === "tool_addition" && isRecord(block.tool)) {
        added.add(String(block.tool.name));
      }
    }
  }
  const list = (Array.isArray(tools) ? tools : []).filter(
    (tool) => !(isRecord(tool) && tool.defer_loading === true && !added.has(String(tool.name))),
  );
  const keyed = list.map((tool) => [
    isRecord(tool) ? String(tool.name ?? "") : "",
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

const COMPACTION_TOKEN_PREFIX = "lbkc1";

function contentHash(content: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(content ?? null))
    .digest("hex")
    .slice(0, 32);
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
  const payload = Buffer.from(JSON.stringify(binding)).toString("base64url");
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
  const signature = block.signature;
  if (typeof signature !== "string") return { kind: "signature_invalid" };
  const parts = signature.split(".");
  if (parts.length !== 3 || parts[0] !== COMPACTION_TOKEN_PREFIX) {
    return { kind: "signature_invalid" };
  }
  if (mac("compaction", parts[1]!, "") !== parts[2]) return { kind: "signature_invalid" };
  let binding: CompactionBinding;
  try {
    binding = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as CompactionBinding;
  } catch {
    return { kind: "signature_invalid" };
  }
  if (contentHash(block.content) !== binding.h) return { kind: "content_mismatch" };
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

interface Binding {
  /** Hashes of `system`, the tool set and the messages before the block. */
  s: string;
  t: string;
  m: string;
  /** The fingerprint of the thinking block before it, or null. */
  p: string | null;
  /** A redacted block's hidden reasoning. */
  x?: string;
}

function bindingAt(body: Body, messages: readonly WireMessage[], at: [number, number]): Binding {
  const { digest: m, prefix } = prefixDigest(body, messages, at[0], at[1]);
  return { s: systemDigest(body.system), t: toolsDigest(body.tools, prefix), m, p: null };
}

function mac(type: string, payload: string, thinking: string): string {
  return createHmac("sha256", SECRET)
    .update(`${type}\n${payload}\n${thinking}`)
    .digest("base64url");
}

function token(type: ThinkingFailure["type"], binding: Binding, thinking: string): string {
  const payload = Buffer.from(JSON.stringify(binding)).toString("base64url");
  return `${TOKEN_PREFIX}.${payload}.${mac(type, payload, thinking)}`;
}

/** What a block's signature (or `data`) says: ours and intact, someone else's, or tampered. */
function readToken(
  block: Block & { type: ThinkingFailure["type"] },
): { kind: "ours"; binding: Binding } | { kind: "foreign" } | { kind: "tampered" } {
  const value = block.type === "thinking" ? block.signature : block.data;
  if (typeof value !== "string") return { kind: "tampered" };
  const parts = value.split(".");
  if (parts[0] !== TOKEN_PREFIX) return { kind: "foreign" };
  if (parts.length !== 3) return { kind: "tampered" };
  let binding: Binding;
  try {
    binding = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Binding;
  } catch {
    return { kind: "tampered" };
  }
  const thinking = block.type === "thinking" ? block.thinking : "";
  if (typeof thinking !== "string" || mac(block.type, parts[1]!, thinking) !== parts[2]) {
    return { kind: "tampered" };
  }
  return { kind: "ours", binding };
}

function fingerprint(block: Block): string {
  const value = block.type === "thinking" ? block.signature : block.data;
  return createHash("sha256")
    .update(`${String(block.type)}:${String(value)}`)
    .digest("hex");
}

function failureMessage(
  path: string,
  type: ThinkingFailure["type"],
  reason: ThinkingFailureReason,
  changed?: ThinkingPrefixChange,
  betaSent = true,
): string {
  const field = type === "thinking" ? "`signature` in `thinking`" : "`data` in `redacted_thinking`";
  const invalid = `${path}: Invalid ${field} block`;
  if (reason !== "prefix_binding_mismatch") return invalid;
  const requires = betaSent
    ? ""
    : ` That setting requires the \`${THINKING_BINDING_BETA}\` value in the \`anthropic-beta\` header.`;
  return `${invalid}. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".${requires}${changed ? ` ${CHANGED[changed]}` : ""}`;
}

interface Analysis {
  failures: ThinkingFailure[];
  /** The last block kept: what the model is shown last. */
  previous: string | null;
}

/**
 * Walks the thinking blocks in request order. A block passes when its signature is ours and
 * intact, its prefix hashes match, and it records the last block kept before it (or nothing
 * before it was kept: a leading run was removed). With `showMismatched` (the check not
 * enforced) a mismatched block is still shown, so it counts as kept.
 */
function analyze(body: unknown, showMismatched = false): Analysis {
  const request = (isRecord(body) ? body : {}) as Body;
  const messages = messagesOf(request);
  const failures: ThinkingFailure[] = [];
  let previous: string | null = null;
  for (const [messageIndex, message] of messages.entries()) {
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (!isThinkingBlock(block)) continue;
      const read = readToken(block);
      const now = bindingAt(request, messages, [messageIndex, blockIndex]);
      const changed: ThinkingPrefixChange | undefined =
        read.kind !== "ours"
          ? undefined
          : read.binding.s !== now.s
            ? "system"
            : read.binding.t !== now.t
              ? "tools"
              : read.binding.m !== now.m
                ? "messages"
                : previous !== null && read.binding.p !== previous
                  ? "earlier_thinking"
                  : undefined;
      const reason: ThinkingFailureReason | undefined =
        read.kind === "tampered"
          ? "signature_invalid"
          : read.kind === "foreign"
            ? "model_binding_mismatch"
            : changed === undefined
              ? undefined
              : "prefix_binding_mismatch";
      if (reason !== undefined) {
        const path = `messages.${messageIndex}.content.${blockIndex}`;
        failures.push({
          path,
          messageIndex,
          blockIndex,
          type: block.type,
          reason,
          ...(changed ? { changed } : {}),
          message: failureMessage(path, block.type, reason, changed),
        });
      }
      if (reason === undefined || (reason === "prefix_binding_mismatch" && showMismatched)) {
        previous = fingerprint(block);
      }
    }
  }
  return { failures, previous };
}

/**
 * The thinking blocks of a request body that fail a check, in request order: tampered
 * signatures (`signature_invalid`), blocks the model cannot read (`model_binding_mismatch`)
 * and blocks whose prefix changed (`prefix_binding_mismatch`: with `"drop_block"`, exactly
 * the blocks the API drops). Empty when every block sent back is valid.
 *
 * @example
 * const failures = checkThinkingPrefix({ system, tools, messages });
 * if (failures.length > 0) console.log(failures[0].message);
 */
export function checkThinkingPrefix(body: unknown): ThinkingFailure[] {
  return analyze(body).failures;
}

function thinkingConfig(body: Body): Record<string, unknown> | undefined {
  return isRecord(body.thinking) ? body.thinking : undefined;
}

/** Whether the model thinks on this request. */
export function thinksOn(body: unknown, thinkByDefault = false): boolean {
  const config = thinkingConfig((isRecord(body) ? body : {}) as Body);
  if (config === undefined) return thinkByDefault;
  return config.type === "enabled" || config.type === "adaptive";
}

/**
 * Rule 5: while thinking is on and the request answers the last assistant message's
 * `tool_use` blocks, that message must start with a thinking block. The 400's message, or
 * `undefined` when the request passes.
 */
export function toolLoopThinkingProblem(
  body: unknown,
  options: Pick<ThinkingRuleOptions, "thinkByDefault"> = {},
): string | undefined {
  if (!thinksOn(body, options.thinkByDefault)) return undefined;
  const messages = messagesOf((isRecord(body) ? body : {}) as Body);
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role === "system") last -= 1;
  const answer = messages[last];
  if (answer?.role !== "user") return undefined;
  if (!blocksOf(answer).some((block) => isRecord(block) && block.type === "tool_result")) {
    return undefined;
  }
  let index = last - 1;
  while (index >= 0 && messages[index]?.role === "system") index -= 1;
  const call = messages[index];
  if (call?.role !== "assistant") return undefined;
  const blocks = blocksOf(call);
  if (!blocks.some((block) => isRecord(block) && block.type === "tool_use")) return undefined;
  const first = blocks[0];
  if (isThinkingBlock(first)) return undefined;
  const found = isRecord(first) ? String(first.type) : "nothing";
  return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
}

function betas(headers: Readonly<Record<string, string>> | undefined): string[] {
  return (headers?.["anthropic-beta"] ?? "").split(",").map((value) => value.trim());
}

/**
 * What the server does with a request's thinking: the 400 it answers, or the blocks it drops
 * and the `input_transformations` it reports. `endpoint: "count_tokens"` runs the prefix
 * check only (the tool-loop rule is a `/v1/messages` rule).
 */
export function judgeThinking(
  request: ThinkingRequest,
  options: ThinkingRuleOptions & { endpoint?: "messages" | "count_tokens" } = {},
): ThinkingVerdict {
  const body = (isRecord(request.body) ? request.body : {}) as Body;
  const mode = options.mode ?? "enforced";
  const beta = betas(request.headers).includes(THINKING_BINDING_BETA);
  const binding = thinkingConfig(body)?.block_binding;
  if (binding !== undefined && binding !== null && !beta) {
    return {
      ok: false,
      message: `thinking.block_binding: This field requires the \`${THINKING_BINDING_BETA}\` value in the \`anthropic-beta\` header.`,
    };
  }
  const behavior = isRecord(binding) ? binding.prefix_mismatch_behavior : undefined;
  const thinking = thinksOn(body, options.thinkByDefault);
  if (mode === "off") return { ok: true, dropped: [], previous: analyze(body).previous, thinking };
  const enforced = mode === "enforced" || (behavior !== undefined && behavior !== null);
  const { failures, previous } = analyze(body, !enforced);
  const dropped: ThinkingFailure[] = [];
  const transformations: InputTransformation[] = [];
  for (const failure of failures) {
    if (failure.reason === "signature_invalid") return { ok: false, message: failure.message };
    if (failure.reason === "prefix_binding_mismatch" && !enforced) {
      transformations.push({
        type: "thinking_mismatch_allowed",
        path: failure.path,
        reason: failure.reason,
      });
      continue;
    }
    if (failure.reason === "prefix_binding_mismatch" && behavior !== "drop_block") {
      const { path, type, reason, changed } = failure;
      return { ok: false, message: failureMessage(path, type, reason, changed, beta) };
    }
    dropped.push(failure);
    transformations.push({ type: "thinking_dropped", path: failure.path, reason: failure.reason });
  }
  if (options.endpoint !== "count_tokens") {
    const problem = toolLoopThinkingProblem(body, options);
    if (problem !== undefined) return { ok: false, message: problem };
  }
  return {
    ok: true,
    dropped,
    ...(beta ? { inputTransformations: transformations } : {}),
    previous,
    thinking,
  };
}

/**
 * The 400 messages the API would answer a request body with, thinking-wise, with
 * `prefix_mismatch_behavior` left at `"error"` (empty when it would accept it): the same
 * check as the server's, offline. `"drop_block"` requests never fail the prefix check; use
 * {@link checkThinkingPrefix} to see what they drop.
 */
export function thinkingProblems(
  body: unknown,
  options: Pick<ThinkingRuleOptions, "thinkByDefault"> = {},
): string[] {
  const problems: string[] = [];
  const fatal = checkThinkingPrefix(body).find(
    (failure) => failure.reason !== "model_binding_mismatch",
  );
  if (fatal !== undefined) problems.push(fatal.message);
  const loop = toolLoopThinkingProblem(body, options);
  if (loop !== undefined) problems.push(loop);
  return problems;
}

/**
 * Signs the thinking blocks of a reply to `body`: each `thinking` block without a
 * `signature` and each `redacted_thinking` block without `data` gets one, bound to the
 * request's `system`, tools and messages, the reply's blocks before it, and the block before
 * it (`previous`: the last block the model was shown; by default the last block of the
 * request that passes the check). Blocks already signed are left as they are.
 */
export function signReplyContent(
  body: unknown,
  content: readonly Record<string, unknown>[],
  previous: string | null = analyze(body).previous,
): Record<string, unknown>[] {
  const request = (isRecord(body) ? body : {}) as Body;
  const messages = [
    ...messagesOf(request),
    { role: "assistant", content: [...content] } satisfies WireMessage,
  ];
  let before = previous;
  return content.map((block, index) => {
    if (!isThinkingBlock(block)) return block;
    let signed: Block = block;
    if (block.type === "thinking" && typeof block.signature !== "string") {
      const thinking = typeof block.thinking === "string" ? block.thinking : "";
      const binding = { ...bindingAt(request, messages, [messages.length - 1, index]), p: before };
      signed = { ...block, thinking, signature: token("thinking", binding, thinking) };
    } else if (block.type === "redacted_thinking" && typeof block.data !== "string") {
      const hidden = typeof block.hidden === "string" ? block.hidden : "";
      const binding = {
        ...bindingAt(request, messages, [messages.length - 1, index]),
        p: before,
        x: Buffer.from(hidden).toString("base64"),
      };
      signed = { type: "redacted_thinking", data: token("redacted_thinking", binding, "") };
    }
    if (readToken(signed as Block & { type: ThinkingFailure["type"] }).kind === "ours") {
      before = fingerprint(signed);
    }
    return signed;
  });
}
