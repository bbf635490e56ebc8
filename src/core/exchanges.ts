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
