import { isSystemMessage } from "./conversation-structure.js";
import type { ContentBlock, Message } from "./message.js";
import type { ConversationProblem } from "./validate-conversation.js";

/** Where a rule check reports each problem it finds. */
export type Report = (problem: ConversationProblem) => void;

/** Checks shared by the OpenAI and AI SDK rules: an empty request, duplicate ids, results in replies. */
export function checkCommon(messages: readonly Message[], report: Report): boolean {
  if (messages.length === 0) {
    report({ code: "empty_conversation", message: "messages: at least one message is required" });
    return false;
  }
  const seen = new Set<string>();
  messages.forEach((message, messageIndex) => {
    message.content.forEach((block, blockIndex) => {
      if (block.type === "tool_use") {
        if (seen.has(block.id)) {
          report({
            code: "duplicate_tool_use_id",
            messageIndex,
            blockIndex,
            toolUseId: block.id,
            message: `messages.${messageIndex}.content.${blockIndex}: tool call ids must be unique: ${block.id}`,
          });
        }
        seen.add(block.id);
      }
      if (block.type === "tool_result" && message.role === "assistant") {
        report({
          code: "tool_result_in_assistant_message",
          messageIndex,
          blockIndex,
          toolUseId: block.toolUseId,
          message: `messages.${messageIndex}: a tool result can only be in a user (tool) message`,
        });
      }
    });
  });
  return true;
}

/** Where each tool call was made: message and block index. */
export interface PendingCall {
  messageIndex: number;
  blockIndex: number;
}

/**
 * Walks the tool calls and results in order, reporting results without an earlier call and
 * second results; `checkpoint` is called before each message with the calls still open, and
 * once more at the end.
 */
function walkToolPairs(
  messages: readonly Message[],
  report: Report,
  words: { orphan: (id: string) => string; duplicate: (id: string) => string },
  checkpoint: (pending: Map<string, PendingCall>, before: Message | undefined) => void,
): void {
  const pending = new Map<string, PendingCall>();
  const answered = new Set<string>();
  messages.forEach((message, messageIndex) => {
    checkpoint(pending, message);
    message.content.forEach((block, blockIndex) => {
      if (block.type === "tool_use" && message.role === "assistant") {
        pending.set(block.id, { messageIndex, blockIndex });
      }
      if (block.type !== "tool_result" || message.role !== "user") return;
      const where = { messageIndex, blockIndex, toolUseId: block.toolUseId };
      if (pending.delete(block.toolUseId)) answered.add(block.toolUseId);
      else if (answered.has(block.toolUseId)) {
        report({
          code: "duplicate_tool_result",
          ...where,
          message: words.duplicate(block.toolUseId),
        });
      } else {
        report({ code: "orphan_tool_result", ...where, message: words.orphan(block.toolUseId) });
      }
    });
  });
  checkpoint(pending, undefined);
}

/** Reports every call still open as `missing_tool_result`, and forgets them. */
export function reportMissing(
  pending: Map<string, PendingCall>,
  report: Report,
  message: (id: string) => string,
): void {
  for (const [id, at] of pending) {
    report({ code: "missing_tool_result", ...at, toolUseId: id, message: message(id) });
  }
  pending.clear();
}

/** The `type` of an opaque block's wire value; `undefined` for any other block. */
export function opaqueType(block: ContentBlock | undefined): string | undefined {
  if (block?.type !== "opaque") return undefined;
  const { type } = block.block;
  return typeof type === "string" ? type : undefined;
}

/**
 * Blocks `toResponsesInput` sends as an item the model produced, which a reasoning item may
 * precede: not thinking (left out), not a tool output, not another reasoning or a compaction item.
 */
export function isModelItem(block: ContentBlock | undefined): boolean {
  if (block === undefined) return false;
  if (
    block.type === "thinking" ||
    block.type === "redacted_thinking" ||
    block.type === "tool_result"
  )
    return false;
  const type = opaqueType(block);
  return type !== "reasoning" && type !== "compaction";
}

/**
 * The OpenAI Responses API's rules, on the items `toResponsesInput` makes of the messages:
 * every function call answered by a later output with its `call_id` (the end included), every
 * output answering an earlier call, once; a reasoning item followed, in its message, by the
 * item it was produced with; a compaction item only between complete items (no call open).
 */
export function openAIProblems(messages: readonly Message[], report: Report): void {
  if (!checkCommon(messages, report)) return;
  messages.forEach((message, messageIndex) => {
    message.content.forEach((block, blockIndex) => {
      if (opaqueType(block) !== "reasoning") return;
      if (message.role === "assistant" && isModelItem(message.content[blockIndex + 1])) return;
      const id = block.type === "opaque" ? String(block.block["id"] ?? "") : "";
      report({
        code: "reasoning_without_following_item",
        messageIndex,
        blockIndex,
        message: `messages.${messageIndex}.content.${blockIndex}: Item '${id}' of type 'reasoning' was provided without its required following item.`,
      });
    });
  });
  const missing = (id: string) => `No tool output found for function call ${id}.`;
  walkToolPairs(
    messages,
    report,
    {
      orphan: (id) => `No tool call found for function call output with call_id ${id}.`,
      duplicate: (id) => `Duplicate function call output for call_id ${id}.`,
    },
    (pending, next) => {
      const compaction =
        next?.content.findIndex((block) => opaqueType(block) === "compaction") ?? -1;
      if (next === undefined) reportMissing(pending, report, missing);
      else if (compaction !== -1 && pending.size > 0) {
        const index = messages.indexOf(next);
        report({
          code: "misplaced_compaction",
          messageIndex: index,
          blockIndex: compaction,
          message: `messages.${index}: a compaction item cannot sit between a function call and its output (${[...pending.keys()].join(", ")})`,
        });
      }
    },
  );
}

/**
 * The AI SDK's rules (`generateText`/`streamText` refuse the prompt otherwise): at least one
 * message; every tool call the app runs answered before the next user or system message and
 * by the end (`MissingToolResultsError`); results answering an earlier call, once (what every
 * provider behind it refuses).
 */
export function aiSdkProblems(messages: readonly Message[], report: Report): void {
  if (!checkCommon(messages, report)) return;
  const missing = (id: string) => `Tool result is missing for tool call ${id}.`;
  walkToolPairs(
    messages,
    report,
    {
      orphan: (id) => `Tool result for tool call ${id} has no tool call before it.`,
      duplicate: (id) => `Tool call ${id} has more than one tool result.`,
    },
    (pending, next) => {
      if (pending.size === 0) return;
      const opensRequest =
        next === undefined ||
        isSystemMessage(next) ||
        (next.role === "user" && next.content.every((block) => block.type !== "tool_result"));
      if (opensRequest) reportMissing(pending, report, missing);
    },
  );
}
