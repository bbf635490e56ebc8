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
