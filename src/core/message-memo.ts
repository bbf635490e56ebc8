import { isPrefixView } from "../internal/prefix-view.js";
import type { ContentBlock, Message } from "./message.js";
import { estimateBlockTokens, estimateContentTokens, MESSAGE_OVERHEAD_TOKENS } from "./tokens.js";

/** What the library remembers of a message object. */
interface Memo {
  /** Its token estimate (always above 0): as is when validated, negated when only estimated. */
  tokens: number;
  /** The last {@link knownMessages} call that met it: a repeat in one array is seen without a set. */
  seen: number;
  /** Of a conversation's first message: what masking passes on that conversation noted of it. */
  pastPass?: object;
}

/**
 * What is remembered of each message object, by identity. Messages are immutable, so what was
 * worked out about one holds as long as the object lives.
 */
const memos = new WeakMap<object, Memo>();

/** Numbers the {@link knownMessages} calls, for {@link Memo.seen}. */
let calls = 0;

/** Whether estimating a block serializes JSON (worth remembering) rather than reading lengths. */
function isCostlyToEstimate(block: ContentBlock): boolean {
  return (
    block.type === "tool_use" ||
    block.type === "opaque" ||
    (block.type === "tool_result" && typeof block.content !== "string")
  );
}

function countMessageTokens(message: Message): { tokens: number; costly: boolean } {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  let costly = false;
  for (const block of message.content) {
    tokens += estimateBlockTokens(block);
    if (!costly && isCostlyToEstimate(block)) costly = true;
  }
  return { tokens, costly };
}

/**
 * Estimates the tokens of one message with the local chars-based estimate. The estimate of a
 * message that needs JSON serialization, or was validated, is computed once per object; the
 * others only read string lengths, which costs less than remembering them.
 */
export function estimateMessageTokens(message: Message): number {
  const memo = memos.get(message);
  if (memo !== undefined) return Math.abs(memo.tokens);
  const { tokens, costly } = countMessageTokens(message);
  if (costly) memos.set(message, { tokens: -tokens, seen: 0 });
  return tokens;
}

/**
 * The estimate of `after`, a version of `before` (whose estimate is `beforeTokens`) that an
 * edit made: with as many messages, only those at positions where it holds another object are
 * estimated (both versions), as a masking pass leaves most of a long conversation as it was;
 * otherwise the whole of `after`. Exactly {@link estimateTokens}`(after)` when `beforeTokens`
 * is `before`'s.
 */
export function estimateEdited(
  before: readonly Message[],
  beforeTokens: number,
  after: readonly Message[],
): number {
  if (after === before) return beforeTokens;
  if (after.length !== before.length) return estimateTokens(after);
  let tokens = beforeTokens;
  for (let index = 0; index < after.length; index += 1) {
    const now = after[index]!;
    const then = before[index]!;
    if (now !== then) tokens += estimateMessageTokens(now) - estimateMessageTokens(then);
  }
  return tokens;
}

/** What masking passes left on the conversation whose first message is `first`, if anything. */
export function pastPassOf(first: Message): object | undefined {
  return memos.get(first)?.pastPass;
}

/** Leaves `pass` for the next passes on the conversation whose first message is `first`. */
export function leavePastPass(first: Message, pass: object): void {
  const memo = memos.get(first);
  if (memo !== undefined) memo.pastPass = pass;
  else memos.set(first, { tokens: -countMessageTokens(first).tokens, seen: 0, pastPass: pass });
}

/** Estimates the tokens of a conversation with the local chars-based estimate. */
export function estimateTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/**
 * Remembers messages that were validated where they entered (the session's `append`, a
 * schema check), so no later check repeats it; `tokens`, their estimates when the check
 * worked them out.
 */
export function rememberValid(messages: readonly Message[], tokens?: readonly number[]): void {
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    const memo = memos.get(message);
    if (memo === undefined)
      memos.set(message, {
        tokens: tokens?.[index] ?? countMessageTokens(message).tokens,
        seen: 0,
      });
    else if (memo.tokens < 0) memo.tokens = -memo.tokens;
  }
}

/**
 * A conversation array seen validated: its messages then (a copy), their estimate, and whether
 * its tool exchanges were found whole as it is now.
 */
interface KnownConversation {
  messages: readonly unknown[];
  tokens: number;
  exchangesWhole?: boolean;
}

const conversations = new WeakMap<readonly unknown[], KnownConversation>();

function startsWith(values: readonly unknown[], prefix: readonly unknown[]): boolean {
  if (prefix.length > values.length) return false;
  for (let index = 0; index < prefix.length; index += 1)
    if (values[index] !== prefix[index]) return false;
  return true;
}

/** Whether an element from `from` on (those are distinct) is one of those before it. */
function repeatsKnown(values: readonly unknown[], from: number): boolean {
  if (values.length - from > 16) {
    const appended = new Set(values.slice(from));
    for (let index = 0; index < from; index += 1) if (appended.has(values[index])) return true;
    return false;
  }
  for (let index = from; index < values.length; index += 1)
    if (values.indexOf(values[index]) !== index) return true;
  return false;
}

/**
 * What is known of `values`: the estimate of its messages validated before, and the indexes of
 * the elements that were not (messages never seen, a message object repeated, anything else).
 * An array seen before costs one comparison per element with its copy from then, plus a lookup
 * per message appended since; any other array, a lookup per message. When every element is
 * known, the array is remembered as it is now. Message ids are not compared: they were checked
 * unique within each conversation validated, and compaction never relies on them.
 */
export function knownMessages(values: readonly unknown[]): {
  tokens: number;
  unknown: number[];
  /** Whether its tool exchanges were found whole as it is now (an array checked before, unchanged). */
  exchangesWhole?: boolean;
} {
  const known = conversations.get(values);
  const from =
    known !== undefined && (known.messages === values || startsWith(values, known.messages))
      ? known.messages.length
      : 0;
  if (known !== undefined && from === values.length)
    return { tokens: known.tokens, unknown: [], exchangesWhole: known.exchangesWhole === true };
  let tokens = from === 0 ? 0 : known!.tokens;
  const unknown: number[] = [];
  const call = ++calls;
  let repeated = false;
  for (let index = from; index < values.length; index += 1) {
    const value = values[index];
    const memo = typeof value === "object" && value !== null ? memos.get(value) : undefined;
    if (memo === undefined || memo.tokens < 0) {
      unknown.push(index);
      continue;
    }
    tokens += memo.tokens;
    if (memo.seen === call) repeated = true;
    memo.seen = call;
  }
  if (unknown.length > 0) return { tokens, unknown };
  if (repeated || (from > 0 && repeatsKnown(values, from))) {
    return { tokens, unknown: Array.from({ length: values.length - from }, (_, i) => from + i) };
  }
  if (known !== undefined && from > 0) {
    known.messages = known.messages.concat(values.slice(from));
    known.tokens = tokens;
    known.exchangesWhole = false;
  } else {
    rememberConversation(values, tokens);
  }
  return { tokens, unknown };
}

/**
 * Remembers `values` as it is now, a conversation of distinct messages validated as a whole,
 * its estimate, and whether its tool exchanges were found whole: checked again unchanged or grown, it costs a comparison per message. Its
 * messages are not remembered one by one: a stateless server sends new ones with each request,
 * and remembering each would cost more than checking it.
 */
export function rememberConversation(
  values: readonly unknown[],
  tokens: number,
  exchangesWhole = false,
): void {
  // A frozen array or a session's `messages` view cannot change: it is its own copy.
  conversations.set(values, {
    messages: Object.isFrozen(values) || isPrefixView(values) ? values : values.slice(),
    tokens,
    exchangesWhole,
  });
}

/**
 * Remembers messages a conversion just built from input it checked (`fromResponsesInput`, …)
 * as a valid conversation, by the array alone ({@link rememberConversation}): the compaction
 * and the conversion back that come next find them known.
 */
export function rememberBuilt(messages: readonly Message[]): void {
  // Turns count up from the conversion's first: past 2^53 the last is refused by the check.
  if (!Number.isSafeInteger(messages.at(-1)?.turnId.number ?? 0)) return;
  rememberConversation(messages, contentTokens(messages));
}

/**
 * The estimate of `messages`, block by block. A function of its own: V8 compiles a long loop
 * on the stack, and a call after it inside the same function then met no type feedback and
 * threw the code away again and again.
 */
function contentTokens(messages: readonly Message[]): number {
  let tokens = 0;
  for (let index = 0; index < messages.length; index += 1)
    tokens += estimateContentTokens(messages[index]!.content);
  return tokens;
}

/**
 * Whether nothing seems known of `values`: not an array seen before, and its first element no
 * message remembered (a conversation a stateless server was just sent). A hint for choosing
 * the check, not a promise: its other messages may be known.
 */
export function seemsNew(values: readonly unknown[]): boolean {
  if (conversations.has(values)) return false;
  const first = values[0];
  return typeof first !== "object" || first === null || !memos.has(first);
}

/** The memo of `values` when it holds exactly the messages `values` holds now. */
function knownAsItIs(values: readonly unknown[]): KnownConversation | undefined {
  const known = conversations.get(values);
  if (known === undefined || known.messages.length !== values.length) return undefined;
  return known.messages === values || startsWith(values, known.messages) ? known : undefined;
}

/**
 * Whether `values`, as it is now, was found to hold whole tool exchanges before (see
 * {@link rememberExchangesWhole}): a conversation checked again unchanged is not walked again.
 */
export function exchangesKnownWhole(values: readonly unknown[]): boolean {
  return knownAsItIs(values)?.exchangesWhole === true;
}

/** Remembers that `values`, validated and as it is now, holds whole tool exchanges. */
export function rememberExchangesWhole(values: readonly unknown[]): void {
  const known = knownAsItIs(values);
  if (known !== undefined) known.exchangesWhole = true;
}
