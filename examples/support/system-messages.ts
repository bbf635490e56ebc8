import type { RuleRequest } from "../../src/testing/anthropic-rules/wire.js";

/**
 * Mid-conversation `role: "system"` messages, as the loopback Messages API checks them, from
 * https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages
 * (read 2026-12 through a stored mirror):
 * - "A `system` message that carries content cannot be the first entry in `messages`."
 * - "A `system` message that carries content (`text`, `tool_addition`, or `tool_removal` blocks)
 *   must immediately follow a `user` turn (including a `user` turn that carries `tool_result`
 *   blocks) or an `assistant` turn ending in a server tool result, and must precede an
 *   `assistant` turn or end the array. It cannot sit between a `tool_use` block and its
 *   `tool_result`." "Consecutive `system` messages are judged together." "A message with empty
 *   `content` that only sets `output_config.effort` ... is accepted anywhere in `messages`."
 * - Turn-scoped messages (`clear_at: "next_user_message"`, beta
 *   `mid-conversation-system-clear-at-2026-08-21`) are text only, without `output_config` or
 *   `cache_control`; without the beta, `messages.3.clear_at: Extra inputs are not permitted`;
 *   `clear_at` on another role: "clear_at is only permitted on role 'system' messages". Once a
 *   later `user` message exists such a message "stays in the array" but "no longer renders",
 *   and "A cleared message adds nothing to `usage.input_tokens`". It is still part of the
 *   conversation: editing or dropping it is an edit to an earlier message (the thinking check
 *   sees every message as sent).
 * - Right after a message holding only a `compaction` block it is accepted, but "A system
 *   message placed between the block and the kept turns breaks their thinking"
 *   (https://platform.claude.com/docs/en/build-with-claude/compaction-thinking-blocks).
 */

/** The beta of turn-scoped system messages (`clear_at`). */
export const CLEAR_AT_BETA = "mid-conversation-system-clear-at-2026-08-21";

type WireMessage = { role?: unknown; content?: unknown } & Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasContent(message: WireMessage): boolean {
  const { content } = message;
  return typeof content === "string"
    ? content !== ""
    : Array.isArray(content) && content.length > 0;
}

/** A message holding only a `compaction` block: it stands for summarized messages. */
function isCompactionOnly(message: WireMessage | undefined): boolean {
  const { content } = message ?? {};
  return (
    Array.isArray(content) &&
    content.length === 1 &&
    isRecord(content[0]) &&
    content[0]["type"] === "compaction"
  );
}

function endsInServerToolResult(message: WireMessage | undefined): boolean {
  if (message?.role !== "assistant" || !Array.isArray(message.content)) return false;
  const last = message.content.at(-1);
  return (
    isRecord(last) &&
    typeof last["type"] === "string" &&
    last["type"] !== "tool_result" &&
    last["type"].endsWith("_tool_result")
  );
}

const PLACEMENT =
  "a `system` message that carries content must follow a `user` turn (or an `assistant` turn ending in a server tool result) and precede an `assistant` turn or end `messages`";

function turnScopedProblem(message: WireMessage, index: number): string | undefined {
  const where = `messages.${index}`;
  if (typeof message.content !== "string") {
    const blocks = Array.isArray(message.content) ? message.content : [];
    for (const [blockIndex, block] of blocks.entries()) {
      if (!isRecord(block) || block["type"] !== "text") {
        return `${where}: a turn-scoped system message supports text blocks only (clear_at: 'next_user_message')`;
      }
      if (block["cache_control"] !== undefined && block["cache_control"] !== null) {
        return `${where}.content.${blockIndex}: cache_control is not permitted on a turn-scoped system message (clear_at: 'next_user_message')`;
      }
    }
  }
  if (message["output_config"] !== undefined && message["output_config"] !== null) {
    return `${where}: output_config is not permitted on a turn-scoped system message (clear_at: 'next_user_message')`;
  }
  return undefined;
}

/** The 400 message the API answers a request's system messages with, or `undefined`. */
export function systemMessageProblem(request: RuleRequest): string | undefined {
  const body = isRecord(request.body) ? request.body : {};
  const messages = (Array.isArray(body["messages"]) ? body["messages"] : []) as WireMessage[];
  const clearAtBeta = request.betas.includes(CLEAR_AT_BETA);
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message) || !("clear_at" in message)) continue;
    if (!clearAtBeta) return `messages.${index}.clear_at: Extra inputs are not permitted`;
    if (message.role !== "system") {
      return `messages.${index}.clear_at: clear_at is only permitted on role 'system' messages`;
    }
    const clearAt = message["clear_at"];
    if (clearAt !== null && clearAt !== "next_user_message" && clearAt !== "never") {
      return `messages.${index}.clear_at: Input should be 'next_user_message' or 'never'`;
    }
    if (clearAt === "next_user_message") {
      const problem = turnScopedProblem(message, index);
      if (problem !== undefined) return problem;
    }
  }
  let index = 0;
  while (index < messages.length) {
    if (messages[index]?.role !== "system") {
      index += 1;
      continue;
    }
    const start = index;
    let carriesContent = false;
    while (index < messages.length && messages[index]?.role === "system") {
      const message = messages[index]!;
      if (hasContent(message)) carriesContent = true;
      else if (message["output_config"] === undefined || message["output_config"] === null) {
        return `messages.${index}: a \`system\` message needs \`content\` or \`output_config\``;
      }
      index += 1;
    }
    if (!carriesContent) continue;
    if (start === 0) {
      return "messages.0: a `system` message that carries content cannot be the first message: use the top-level `system` field";
    }
    const before = messages[start - 1];
    const after = messages[index];
    // After a compaction block the API accepts it (the block stands for the summarized
    // messages), but it breaks the kept thinking: "A system message placed between the block
    // and the kept turns breaks their thinking".
    const follows =
      before?.role === "user" || endsInServerToolResult(before) || isCompactionOnly(before);
    if (!follows || (after !== undefined && after.role !== "assistant")) {
      return `messages.${start}: ${PLACEMENT}`;
    }
  }
  return undefined;
}

/**
 * The messages the model is shown: a turn-scoped system message that a later `user` message
 * follows no longer renders (the token count leaves it out).
 */
export function renderedMessages(messages: readonly unknown[]): unknown[] {
  return messages.filter((message, index) => {
    if (
      !isRecord(message) ||
      message["role"] !== "system" ||
      message["clear_at"] !== "next_user_message"
    )
      return true;
    return !messages.slice(index + 1).some((later) => isRecord(later) && later["role"] === "user");
  });
}
