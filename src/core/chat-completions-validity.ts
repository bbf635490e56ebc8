import { isSystemMessage } from "./conversation-structure.js";
import type { Message } from "./message.js";
import { checkCommon, type PendingCall, type Report, reportMissing } from "./provider-validity.js";

/** The mark of a deprecated `function` role message the Chat Completions adapter carries whole. */
const CARRIED_MESSAGE_KEY = "chatCompletions:part";

/** One message of the request `toChatMessages` sends, as the rules read it. */
interface Entry {
  role: "system" | "user" | "assistant" | "tool" | "function";
  messageIndex: number;
  /** The block the entry stands for: a tool result's, a tool call's. */
  blockIndex?: number;
  /** A tool message's `tool_call_id`. */
  toolCallId?: string;
  /** An assistant message's calls, by id. */
  calls?: Map<string, PendingCall>;
}

/**
 * The request's messages in order, as `toChatMessages` writes ours: a system message as
 * itself, an assistant message as one (its `tool_use` blocks its `tool_calls`), a user message
 * as a `tool` message per tool result first, then one user message for the rest (if any).
 */
function entries(messages: readonly Message[]): Entry[] {
  const out: Entry[] = [];
  messages.forEach((message, messageIndex) => {
    if (isSystemMessage(message)) {
      out.push({ role: "system", messageIndex });
      return;
    }
    if (message.role === "assistant") {
      const calls = new Map<string, PendingCall>();
      message.content.forEach((block, blockIndex) => {
        if (block.type === "tool_use") calls.set(block.id, { messageIndex, blockIndex });
      });
      out.push({ role: "assistant", messageIndex, calls });
      return;
    }
    let rest = false;
    message.content.forEach((block, blockIndex) => {
      if (block.type === "tool_result") {
        out.push({ role: "tool", messageIndex, blockIndex, toolCallId: block.toolUseId });
      } else if (block.type === "opaque" && block.block[CARRIED_MESSAGE_KEY] === "message") {
        out.push({ role: "function", messageIndex, blockIndex });
      } else rest = true;
    });
    if (rest) out.push({ role: "user", messageIndex });
  });
  return out;
}

const missing = (id: string) =>
  `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${id}`;

/** A tool message that answers no open call of the assistant message right before it. */
function reportUnanswerable(entry: Entry, afterCalls: boolean, answered: boolean, report: Report) {
  const id = entry.toolCallId ?? "";
  const where = {
    messageIndex: entry.messageIndex,
    ...(entry.blockIndex === undefined ? {} : { blockIndex: entry.blockIndex }),
    toolUseId: id,
  };
  if (answered && afterCalls) {
    report({
      code: "duplicate_tool_result",
      ...where,
      message: `Invalid parameter: duplicate tool message for 'tool_call_id' of '${id}'.`,
    });
  } else {
    report({
      code: "orphan_tool_result",
      ...where,
      message: afterCalls
        ? `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`
        : "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    });
  }
}

/**
 * The Chat Completions rules (OpenAI's, which compatible hosts share), on the messages
 * `toChatMessages` makes of ours: every `tool` message answers a call of the assistant message
 * before it, with only `tool` messages between; every call is answered before the next message
 * that is not a `tool` message, and by the end; after the system messages, the first message
 * is the user's (chat templates of open models behind vLLM and Ollama refuse others).
 */
export function chatCompletionsProblems(messages: readonly Message[], report: Report): void {
  if (!checkCommon(messages, report)) return;
  const all = entries(messages);
  const first = all.find((entry) => entry.role !== "system");
  if (first?.role === "assistant") {
    report({
      code: "first_message_not_user",
      messageIndex: first.messageIndex,
      message: 'messages: the first message after the system messages must use the "user" role',
    });
  }
  let pending = new Map<string, PendingCall>();
  /** The calls of the assistant message the current run of tool messages answers. */
  let calls: Map<string, PendingCall> | undefined;
  for (const entry of all) {
    if (entry.role === "tool") {
      const id = entry.toolCallId ?? "";
      if (!pending.delete(id))
        reportUnanswerable(entry, calls !== undefined, calls?.has(id) ?? false, report);
      continue;
    }
    reportMissing(pending, report, missing);
    calls = entry.role === "assistant" && (entry.calls?.size ?? 0) > 0 ? entry.calls : undefined;
    pending = new Map(calls);
  }
  reportMissing(pending, report, missing);
}
