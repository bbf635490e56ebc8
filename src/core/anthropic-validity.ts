import { anyAssistantImage, placeImages } from "./assistant-images.js";
import type { ConversationProblem } from "./conversation-problem.js";
import {
  isCompactionBlock,
  isSystemMessage,
  isSystemMessageBlock,
  startsWithCompaction,
} from "./conversation-structure.js";
import type { ContentBlock, Message } from "./message.js";

// The Messages API's rules across messages, as `validateConversation` checks them for
// `provider: "anthropic"` (the other providers' rules are in provider-validity.ts).

/** The most messages one request may carry. */
export const MAX_MESSAGES_PER_REQUEST = 100_000;

const ASSISTANT_ONLY_BLOCKS = new Set<ContentBlock["type"]>([
  "tool_use",
  "thinking",
  "redacted_thinking",
]);

/** The Messages API's rules, in order: the request's shape, each message, system messages, the end. */
export function anthropicProblems(
  parsed: readonly Message[],
  report: (problem: ConversationProblem) => void,
): void {
  if (!openingProblems(parsed, report)) return;
  const seenToolUseIds = new Set<string>();
  const last = parsed.length - 1;
  parsed.forEach((message, index) => {
    const where = `messages.${index}`;
    if (message.content.length === 0 && !(index === last && message.role === "assistant")) {
      report({
        code: "empty_content",
        messageIndex: index,
        message: `${where}: all messages must have non-empty content except for the optional final assistant message`,
      });
    }
    checkBlocks(message.role, message.content, index, seenToolUseIds, report);
    if (message.role === "assistant") {
      checkToolResultsFollow(message.content, parsed[index + 1], index, index === last, report);
      checkServerToolPairs(message.content, index, report);
    } else {
      checkToolResultsAnswer(message.content, parsed[index - 1], index, report);
    }
  });
  checkSystemMessages(parsed, report);
  checkFinalWhitespace(parsed, report);
}

/**
 * The request's shape: at least one message, not too many, and the first the model reads from
 * the user (or the API's own compaction block). `false` when there is nothing more to check.
 */
function openingProblems(
  parsed: readonly Message[],
  report: (problem: ConversationProblem) => void,
): boolean {
  if (parsed.length === 0) {
    report({ code: "empty_conversation", message: "messages: at least one message is required" });
    return false;
  }
  if (parsed.length > MAX_MESSAGES_PER_REQUEST) {
    report({
      code: "too_many_messages",
      message: `messages: a request may hold at most ${MAX_MESSAGES_PER_REQUEST} messages, found ${parsed.length}`,
    });
  }
  // What counts is the first message the model reads: system messages that only set
  // `output_config` may come before it.
  const first = Math.max(
    0,
    parsed.findIndex((message) => !isSystemMessage(message)),
  );
  const opening = parsed[first];
  if (opening?.role !== "user" && !startsWithCompaction(opening)) {
    report({
      code: "first_message_not_user",
      messageIndex: first,
      message: 'messages: first message must use the "user" role',
    });
  }
  return true;
}

/** A final assistant message may not end its text with whitespace. */
function checkFinalWhitespace(
  parsed: readonly Message[],
  report: (problem: ConversationProblem) => void,
): void {
  const last = parsed.length - 1;
  const final = parsed[last];
  if (final?.role !== "assistant") return;
  const lastBlock = final.content.at(-1);
  if (lastBlock?.type === "text" && lastBlock.text.trim() !== "" && /\s$/.test(lastBlock.text)) {
    report({
      code: "trailing_whitespace",
      messageIndex: last,
      blockIndex: final.content.length - 1,
      message: "messages: final assistant content cannot end with trailing whitespace",
    });
  }
}

/** Each block's own rules: non-empty text, unique tool use ids, blocks in the right role's message. */
function checkBlocks(
  role: Message["role"],
  content: readonly ContentBlock[],
  index: number,
  seenToolUseIds: Set<string>,
  report: (problem: ConversationProblem) => void,
): void {
  let otherContentSeen = false;
  content.forEach((block, blockIndex) => {
    const at = { messageIndex: index, blockIndex };
    checkText(block, `messages.${index}.content.${blockIndex}`, at, report);
    if (block.type === "tool_use") {
      if (seenToolUseIds.has(block.id)) {
        report({
          code: "duplicate_tool_use_id",
          ...at,
          toolUseId: block.id,
          message: `messages.${index}.content.${blockIndex}: \`tool_use\` ids must be unique`,
        });
      }
      seenToolUseIds.add(block.id);
    }
    checkRole(role, block, at, otherContentSeen, report);
    if (role === "user" && block.type !== "tool_result") otherContentSeen = true;
  });
}

/** A text block must hold non-whitespace text. */
function checkText(
  block: ContentBlock,
  where: string,
  at: { messageIndex: number; blockIndex: number },
  report: (problem: ConversationProblem) => void,
): void {
  if (block.type !== "text") return;
  if (block.text === "") {
    report({
      code: "empty_text",
      ...at,
      message: `${where}: text content blocks must be non-empty`,
    });
  } else if (block.text.trim() === "") {
    report({
      code: "whitespace_text",
      ...at,
      message: `${where}: text content blocks must contain non-whitespace text`,
    });
  }
}

/** Tool results only in user messages, first there; assistant-only blocks only in assistant ones. */
function checkRole(
  role: Message["role"],
  block: ContentBlock,
  at: { messageIndex: number; blockIndex: number },
  otherContentSeen: boolean,
  report: (problem: ConversationProblem) => void,
): void {
  const index = at.messageIndex;
  if (role === "assistant" && block.type === "tool_result") {
    report({
      code: "tool_result_in_assistant_message",
      ...at,
      toolUseId: block.toolUseId,
      message: `messages.${index}: \`tool_result\` blocks can only be in \`user\` messages`,
    });
  }
  if (role === "user" && ASSISTANT_ONLY_BLOCKS.has(block.type)) {
    report({
      code: "assistant_block_in_user_message",
      ...at,
      message: `messages.${index}: \`${block.type}\` blocks can only be in \`assistant\` messages`,
    });
  }
  if (role === "user" && block.type === "tool_result" && otherContentSeen) {
    report({
      code: "tool_result_not_first",
      ...at,
      toolUseId: block.toolUseId,
      message: `messages.${index}.content.${at.blockIndex}: \`tool_result\` blocks must come first in the user message; any text must come after all tool results`,
    });
  }
}

function toolUseIdsOf(content: readonly ContentBlock[]): string[] {
  const ids: string[] = [];
  for (const block of content) if (block.type === "tool_use") ids.push(block.id);
  return ids;
}

/** Every `tool_use` of an assistant message is answered in the very next message (unless it is the last). */
function checkToolResultsFollow(
  content: readonly ContentBlock[],
  next: { role: Message["role"]; content: ContentBlock[] } | undefined,
  index: number,
  isLast: boolean,
  report: (problem: ConversationProblem) => void,
): void {
  const uses = toolUseIdsOf(content);
  if (uses.length === 0 || isLast) return;
  const answered = new Set<string>();
  if (next?.role === "user") {
    for (const block of next.content)
      if (block.type === "tool_result") answered.add(block.toolUseId);
  }
  const missing = uses.filter((id) => !answered.has(id));
  if (missing.length === 0) return;
  report({
    code: "missing_tool_result",
    messageIndex: index,
    ...(missing.length === 1 ? { toolUseId: missing[0] } : {}),
    message: `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  });
}

/** Every `tool_result` of a user message answers a `tool_use` of the message right before it, once. */
function checkToolResultsAnswer(
  content: readonly ContentBlock[],
  previous: { role: Message["role"]; content: ContentBlock[] } | undefined,
  index: number,
  report: (problem: ConversationProblem) => void,
): void {
  const uses = new Set(previous?.role === "assistant" ? toolUseIdsOf(previous.content) : []);
  const answered = new Set<string>();
  content.forEach((block, blockIndex) => {
    if (block.type !== "tool_result") return;
    const where = `messages.${index}.content.${blockIndex}`;
    if (!uses.has(block.toolUseId)) {
      report({
        code: "orphan_tool_result",
        messageIndex: index,
        blockIndex,
        toolUseId: block.toolUseId,
        message: `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.toolUseId}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      });
    } else if (answered.has(block.toolUseId)) {
      report({
        code: "duplicate_tool_result",
        messageIndex: index,
        blockIndex,
        toolUseId: block.toolUseId,
        message: `${where}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${block.toolUseId}`,
      });
    }
    answered.add(block.toolUseId);
  });
}

/** Server-tool results (opaque `*_tool_result` blocks) follow their `*_tool_use` in the same message. */
function checkServerToolPairs(
  content: readonly ContentBlock[],
  index: number,
  report: (problem: ConversationProblem) => void,
): void {
  const uses = new Set<string>();
  content.forEach((block, blockIndex) => {
    if (block.type !== "opaque") return;
    const type = block.block["type"];
    if (typeof type !== "string") return;
    if (type.endsWith("_tool_use") && typeof block.block["id"] === "string") {
      uses.add(block.block["id"]);
    } else if (type.endsWith("_tool_result") && typeof block.block["tool_use_id"] === "string") {
      const id = block.block["tool_use_id"];
      if (uses.has(id)) return;
      const use = type === "mcp_tool_result" ? "mcp_tool_use" : "server_tool_use";
      report({
        code: "orphan_server_tool_result",
        messageIndex: index,
        blockIndex,
        toolUseId: id,
        message: `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`${type}\` blocks: ${id}. Each \`${type}\` block must have a corresponding \`${use}\` block before it.`,
      });
    }
  });
}

/** Whether a system message carries content (an `output_config`-only one is accepted anywhere). */
function carriesContent(message: Message): boolean {
  const block = message.content[0];
  if (!isSystemMessageBlock(block)) return false;
  const { content } = block.block.message;
  return typeof content === "string"
    ? content !== ""
    : Array.isArray(content) && content.length > 0;
}

/** Whether an assistant message ends in a server tool result (a paused turn). */
function endsInServerToolResult(message: Message | undefined): boolean {
  const last = message?.role === "assistant" ? message.content.at(-1) : undefined;
  const type = last?.type === "opaque" ? last.block["type"] : undefined;
  return typeof type === "string" && type.endsWith("_tool_result");
}

/**
 * Mid-conversation system messages where the API takes them: a message of their own; and a
 * group of them that carries content right after a user turn (or an assistant turn ending in a
 * server tool result, or the compaction block that stands for summarized messages), before an
 * assistant turn or at the end.
 */
function checkSystemMessages(
  messages: readonly Message[],
  report: (problem: ConversationProblem) => void,
): void {
  messages.forEach((message, index) => {
    if (isSystemMessage(message) || !message.content.some(isSystemMessageBlock)) return;
    report({
      code: "misplaced_system_message",
      messageIndex: index,
      message: `messages.${index}: a \`system\` message must be a message of its own, not a block among others`,
    });
  });
  let index = 0;
  while (index < messages.length) {
    if (!isSystemMessage(messages[index])) {
      index += 1;
      continue;
    }
    const start = index;
    let content = false;
    while (index < messages.length && isSystemMessage(messages[index])) {
      content ||= carriesContent(messages[index]!);
      index += 1;
    }
    if (!content) continue;
    const before = messages[start - 1];
    const after = messages[index];
    const follows =
      (before?.role === "user" && !isSystemMessage(before)) ||
      endsInServerToolResult(before) ||
      (before !== undefined && before.content.length === 1 && isCompactionBlock(before.content[0]));
    if (follows && (after === undefined || after.role === "assistant")) continue;
    report({
      code: "misplaced_system_message",
      messageIndex: start,
      message:
        start === 0
          ? "messages.0: a `system` message that carries content cannot be the first message: use the top-level `system` field"
          : `messages.${start}: a \`system\` message that carries content must follow a \`user\` turn (or an \`assistant\` turn ending in a server tool result) and precede an \`assistant\` turn or end \`messages\``,
    });
  }
}

/** A problem about the `sent` message at `at`, told of the caller's message at `index`. */
function atCallersIndex(problem: ConversationProblem, at: number, index: number) {
  if (at === index) return problem;
  // The API's words name the message by its index ("messages.3: …"): the caller's, as elsewhere.
  const named = `messages.${at}`;
  const next = problem.message.charAt(named.length);
  const message =
    problem.message.startsWith(named) && (next === "." || next === ":")
      ? `messages.${index}${problem.message.slice(named.length)}`
      : problem.message;
  return { ...problem, messageIndex: index, message };
}

/**
 * `validateConversation`'s Anthropic rules on the messages as `toAnthropicMessages` sends their
 * images ({@link withAssistantImagesMoved}): an assistant message of images alone is left out,
 * and images waiting at the end make a last user message (so the calls of the assistant message
 * before it must be answered). An image moved into a user message, after its tool results,
 * changes no rule; so the rules read the caller's messages, and report the caller's indices.
 */
export function anthropicProblemsAsSent(
  messages: readonly Message[],
  report: (problem: ConversationProblem) => void,
): void {
  if (!anyAssistantImage(messages)) {
    anthropicProblems(messages, report);
    return;
  }
  const sent: Message[] = [];
  const sources: number[] = [];
  const keep = (message: Message, index: number) => {
    sent.push(message);
    sources.push(index);
  };
  placeImages(messages, keep, keep, (images, from) =>
    keep({ ...messages[from]!, role: "user", content: images }, from),
  );
  anthropicProblems(sent, (problem) => {
    const at = problem.messageIndex;
    report(at === undefined ? problem : atCallersIndex(problem, at, sources[at] ?? at));
  });
}
