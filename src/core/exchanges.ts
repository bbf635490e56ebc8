import type { ValidationIssue } from "./errors.js";
import type { Message } from "./message.js";

/**
 * What breaks a tool exchange in `messages` (appended after `open`, the calls waiting at the
 * end of what came before): calls waiting are answered by the next message, each message of
 * results answers only the calls right before it, and a call goes unanswered only at the very
 * end (the open tail). Each issue names the message (and the one before, for a stray result).
 */
export function exchangeIssues(
  messages: readonly Message[],
  open: { unanswered: readonly string[]; results: Message | undefined } = {
    unanswered: [],
    results: undefined,
  },
): ValidationIssue[] {
  let pending: ReadonlySet<string> = new Set(open.unanswered);
  let partialBefore = open.results !== undefined && pending.size > 0;
  const issues: ValidationIssue[] = [];
  // One pass, allocating only where an exchange is (this runs on every append and compaction).
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    let answered = 0;
    let matched = 0;
    let stray: string[] | undefined;
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      answered += 1;
      if (pending.has(block.toolUseId)) matched += 1;
      else {
        stray ??= [];
        stray.push(block.toolUseId);
      }
    }
    if (stray !== undefined) {
      issues.push({
        path: [index, "content"],
        message: `tool_result ${stray.join(", ")} answers no tool_use of the message right before`,
      });
      // The call may be what is missing: the message before is named too.
      if (index > 0)
        issues.push({ path: [index - 1], message: `holds no tool_use ${stray.join(", ")}` });
    }
    if (pending.size > 0) {
      const openTail = index === messages.length - 1 && message.role === "user" && answered > 0;
      // One call answered needs no list; several are checked by id (a result may repeat).
      const answersTheOne = pending.size === 1 && matched > 0;
      const missing = partialBefore || !answersTheOne ? missingOf(pending, message) : [];
      if (partialBefore || (missing.length > 0 && !openTail)) {
        issues.push({
          path: [index],
          message: partialBefore
            ? `tool_use ${missing.join(", ")} already have a message of results: add theirs with addToolResults, which merges them`
            : `tool_use ${missing.join(", ")} of the message before have no result here: answer every call in the next message`,
        });
      }
    }
    partialBefore = false;
    pending = message.role === "assistant" ? toolUseIds(message) : NONE;
  }
  return issues;
}

const NONE: ReadonlySet<string> = new Set();

/** The ids of a message's tool uses. */
function toolUseIds(message: Message): ReadonlySet<string> {
  let ids: Set<string> | undefined;
  for (const block of message.content) {
    if (block.type !== "tool_use") continue;
    ids ??= new Set();
    ids.add(block.id);
  }
  return ids ?? NONE;
}

/** The calls in `pending` that `message` does not answer, in their order. */
function missingOf(pending: ReadonlySet<string>, message: Message): string[] {
  const answered = new Set<string>();
  for (const block of message.content)
    if (block.type === "tool_result") answered.add(block.toolUseId);
  return [...pending].filter((id) => !answered.has(id));
}

/** The most calls one message may leave waiting for {@link ExchangeCheck} to judge it alone. */
const MAX_TRACKED_CALLS = 16;

/**
 * Follows the tool exchanges of a conversation message by message, as {@link exchangeIssues}
 * judges them (nothing open before the first), without allocating for the usual shapes: a
 * message answering the one or few calls of the message before it. For a pass that reads every
 * message anyway (the first check of a conversation never seen).
 */
export class ExchangeCheck {
  /** The calls waiting (the first `#waiting` of them), then those of the message at hand. */
  #pending: string[] = [];
  #next: string[] = [];
  #waiting = 0;

  /**
   * Takes the next message (`isLast`: the conversation's last): `false` when it breaks an
   * exchange, `undefined` when it leaves more than a few calls waiting (ask
   * {@link exchangeIssues}), else `true`.
   */
  step(message: Message, isLast: boolean): boolean | undefined {
    const pending = this.#pending;
    const waiting = this.#waiting;
    const next = this.#next;
    const isAssistant = message.role === "assistant";
    let answered = 0;
    let calls = 0;
    const { content } = message;
    for (let index = 0; index < content.length; index += 1) {
      const block = content[index]!;
      if (block.type === "tool_result") {
        if (!isAmong(block.toolUseId, pending, waiting)) return false;
        answered += 1;
      } else if (block.type === "tool_use" && isAssistant) {
        if (calls === MAX_TRACKED_CALLS) return undefined;
        next[calls] = block.id;
        calls += 1;
      }
    }
    // Calls waiting must each have a result here, unless this is the open tail. No result is
    // stray: one call waiting is answered by any result.
    const openTail = isLast && message.role === "user" && answered > 0;
    if (waiting > 0 && !openTail) {
      if (waiting === 1 ? answered === 0 : !allAnswered(message, pending, waiting)) return false;
    }
    this.#pending = next;
    this.#next = pending;
    this.#waiting = calls;
    return true;
  }
}

function isAmong(id: string, ids: readonly string[], count: number): boolean {
  for (let index = 0; index < count; index += 1) if (ids[index] === id) return true;
  return false;
}

function allAnswered(message: Message, ids: readonly string[], count: number): boolean {
  for (let index = 0; index < count; index += 1) if (!answers(message, ids[index]!)) return false;
  return true;
}

/**
 * Whether {@link exchangeIssues} finds no issue in `messages` (with nothing open before them),
 * told by an {@link ExchangeCheck}; `undefined` when it cannot tell alone.
 */
export function exchangesWhole(messages: readonly Message[]): boolean | undefined {
  const check = new ExchangeCheck();
  for (let index = 0; index < messages.length; index += 1) {
    const whole = check.step(messages[index]!, index === messages.length - 1);
    if (whole !== true) return whole;
  }
  return true;
}

function answers(message: Message, toolUseId: string): boolean {
  for (const block of message.content)
    if (block.type === "tool_result" && block.toolUseId === toolUseId) return true;
  return false;
}
