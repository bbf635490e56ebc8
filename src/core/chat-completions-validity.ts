import { isSystemMessage } from "./conversation-structure.js";
import type { ContentBlock, Message } from "./message.js";
import { checkCommon, type PendingCall, type Report, reportMissing } from "./provider-validity.js";

/**
 * The Chat Completions adapter's marks on an opaque block: a content part carried whole
 * (`true`) or a deprecated `function` role message (`"message"`); a message's own fields and
 * content form; its host's reasoning.
 */
const CARRIED_MESSAGE_KEY = "chatCompletions:part";
const MESSAGE_FIELDS_KEY = "chatCompletions:message";
const CONTENT_FORM_KEY = "chatCompletions:content";
const CHAT_REASONING = "chatCompletions:reasoning";

/**
 * Whether `toChatMessages` writes a block (other than a call or a result) in its message's
 * chat message: text, an image, a part or the fields this adapter keeps; not another API's
 * blocks (Anthropic's thinking and server tools, a Responses hosted tool, a Gemini part).
 */
function writesInMessage(block: ContentBlock): boolean {
  if (block.type === "text" || block.type === "image") return true;
  if (block.type !== "opaque") return false;
  const { block: carried } = block;
  if (carried["type"] === CHAT_REASONING || carried[CARRIED_MESSAGE_KEY] === true) return true;
  return carried[MESSAGE_FIELDS_KEY] !== undefined || carried[CONTENT_FORM_KEY] !== undefined;
}

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
 * as a `tool` message per tool result first, then one user message for the rest (if any);
 * another API's blocks are not written.
 */
function entries(messages: readonly Message[]): Entry[] {
  const out: Entry[] = [];
  // An assistant message's images (another model's) go in a user message after its calls'
  // results: before the next message that writes anything but results (see writeChatMessages).
  let images: number | undefined;
  const placeImages = () => {
    if (images !== undefined) out.push({ role: "user", messageIndex: images });
    images = undefined;
  };
  messages.forEach((message, messageIndex) => {
    if (isSystemMessage(message)) {
      placeImages();
      out.push({ role: "system", messageIndex });
      return;
    }
    if (message.role === "assistant") {
      const calls = new Map<string, PendingCall>();
      let sends = message.content.length === 0;
      let holdsImages = false;
      message.content.forEach((block, blockIndex) => {
        if (block.type === "tool_use") calls.set(block.id, { messageIndex, blockIndex });
        if (block.type === "image") holdsImages = true;
        else sends ||= block.type === "tool_use" || writesInMessage(block);
      });
      // One of nothing else is left out, or stays empty between two user messages, where no
      // rule tells.
      if (sends) {
        placeImages();
        out.push({ role: "assistant", messageIndex, calls });
      }
      if (holdsImages) images ??= messageIndex;
      return;
    }
    const own: Entry[] = [];
    let rest = false;
    message.content.forEach((block, blockIndex) => {
      if (block.type === "tool_result") {
        own.push({ role: "tool", messageIndex, blockIndex, toolCallId: block.toolUseId });
      } else if (block.type === "opaque" && block.block[CARRIED_MESSAGE_KEY] === "message") {
        own.push({ role: "function", messageIndex, blockIndex });
      } else rest ||= writesInMessage(block);
    });
    const results = own.length;
    if (rest) own.push({ role: "user", messageIndex });
    // Waiting images go before a message of no results, after the results of one with more.
    if (results === 0 && rest) placeImages();
    out.push(...own.slice(0, results));
    if (results > 0 && rest) placeImages();
    if (rest) out.push(own[results]!);
  });
  placeImages();
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
  if (all.length === 0) {
    report({ code: "empty_conversation", message: "messages: at least one message is required" });
    return;
  }
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
