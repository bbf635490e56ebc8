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
  let pending = new Set(open.unanswered);
  let partialBefore = open.results !== undefined && pending.size > 0;
  const issues: ValidationIssue[] = [];
  messages.forEach((message, index) => {
    const answered = message.content.flatMap((block) =>
      block.type === "tool_result" ? [block.toolUseId] : [],
    );
    const stray = answered.filter((id) => !pending.has(id));
    if (stray.length > 0) {
      issues.push({
        path: [index, "content"],
        message: `tool_result ${stray.join(", ")} answers no tool_use of the message right before`,
      });
      // The call may be what is missing: the message before is named too.
      if (index > 0)
        issues.push({ path: [index - 1], message: `holds no tool_use ${stray.join(", ")}` });
    }
    const missing = [...pending].filter((id) => !answered.includes(id));
    const openTail =
      index === messages.length - 1 && message.role === "user" && answered.length > 0;
    if (pending.size > 0 && (partialBefore || (missing.length > 0 && !openTail))) {
      issues.push({
        path: [index],
        message: partialBefore
          ? `tool_use ${missing.join(", ")} already have a message of results: add theirs with addToolResults, which merges them`
          : `tool_use ${missing.join(", ")} of the message before have no result here: answer every call in the next message`,
      });
    }
    partialBefore = false;
    pending = new Set(
      message.role === "assistant"
        ? message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))
        : [],
    );
  });
  return issues;
}
