import { isSystemMessage } from "./conversation-structure.js";
import type { Message, ToolResultBlock } from "./message.js";
import { type Clock, createMessage } from "./message-factory.js";

/** The content of the error result that closes a tool call the conversation went on without. */
export const INTERRUPTED_NOTICE =
  "[Tool call interrupted: the conversation went on before its result was given]";

/** The error result ({@link INTERRUPTED_NOTICE}) that closes the call `toolUseId`. */
export function interruptedResult(toolUseId: string): ToolResultBlock {
  return { type: "tool_result", toolUseId, content: INTERRUPTED_NOTICE, isError: true };
}

/** Calls waiting for results: their ids, in order, and the assistant message that made them. */
export interface OpenCalls {
  caller: Message | undefined;
  ids: string[];
}

/**
 * The calls `messages` leave waiting at their end: those of the last assistant message that no
 * message of results after it answered (a run of messages holding results alone: one per result
 * in some formats). None when a message of another kind came after it.
 */
export function openCalls(messages: readonly Message[]): OpenCalls {
  let at = messages.length - 1;
  while (at >= 0 && holdsResultsOnly(messages[at]!)) at -= 1;
  const caller = messages[at];
  if (caller?.role !== "assistant") return { caller: undefined, ids: [] };
  const answered = resultIds(messages, at + 1);
  return { caller, ids: callIds(caller).filter((id) => !answered.has(id)) };
}

/**
 * `messages` with each tool call that the conversation went on without (a run stopped between
 * the model's calls and their results, then a new request) closed by an error result
 * ({@link interruptedResult}), as the session's `addUserText` closes them: no provider takes a
 * call left unanswered. The calls' results may come in a run of messages of results; at the
 * first message of another kind, the calls still waiting are closed there: in it, after the
 * results it leads with, when it is a user's message; in a message of their own before it, when
 * it is an assistant or system message. A call answered further on (the Responses API takes an
 * output anywhere after its call) is not closed. Calls still waiting at the end stay open (the
 * open tail: a last message of results alone, or the last message's calls). `before`: the
 * messages before these (a history known already, never changed), whose open calls the first
 * may answer. The same array when no call was closed.
 */
export function closeInterruptedCalls(
  messages: readonly Message[],
  clock: Clock,
  before: readonly Message[] = [],
): readonly Message[] {
  let out: Message[] | undefined;
  let { caller, ids: waiting } = openCalls(before);
  let later: Map<string, number> | undefined;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    let kept = message;
    if (waiting.length > 0) {
      const answered = resultIds([message], 0);
      waiting = waiting.filter((id) => !answered.has(id));
      const resultsOnly = holdsResultsOnly(message);
      // A run of results goes on; the open tail is left open.
      if (resultsOnly) {
        if (index === messages.length - 1) waiting = [];
      } else {
        later ??= lastResults(messages);
        const missing = waiting.filter((id) => (later!.get(id) ?? -1) <= index);
        waiting = [];
        if (missing.length > 0) {
          out ??= messages.slice(0, index);
          if (message.role === "user" && !isSystemMessage(message))
            kept = withResults(message, missing);
          else out.push(resultsMessage(caller!, missing, clock));
        }
      }
    }
    if (kept !== message) out ??= messages.slice(0, index);
    out?.push(kept);
    if (message.role === "assistant") {
      caller = message;
      waiting = callIds(message);
    }
  }
  return out ?? messages;
}

/** Whether `message` is a user message of tool results and nothing else. */
export function holdsResultsOnly(message: Message): boolean {
  if (message.role !== "user") return false;
  for (const block of message.content) if (block.type !== "tool_result") return false;
  return message.content.length > 0;
}

/** The ids of an assistant message's tool calls, in order. */
function callIds(message: Message): string[] {
  const ids: string[] = [];
  for (const block of message.content) if (block.type === "tool_use") ids.push(block.id);
  return ids;
}

/** The ids the results of `messages` from `from` on answer. */
function resultIds(messages: readonly Message[], from: number): Set<string> {
  const ids = new Set<string>();
  for (let index = from; index < messages.length; index += 1)
    for (const block of messages[index]!.content)
      if (block.type === "tool_result") ids.add(block.toolUseId);
  return ids;
}

/** For each call id answered in `messages`, the position of its last result. */
function lastResults(messages: readonly Message[]): Map<string, number> {
  const at = new Map<string, number>();
  for (let index = 0; index < messages.length; index += 1)
    for (const block of messages[index]!.content)
      if (block.type === "tool_result") at.set(block.toolUseId, index);
  return at;
}

/** `message` with the results closing `toolUseIds` after the results it leads with. */
function withResults(message: Message, toolUseIds: readonly string[]): Message {
  const { content } = message;
  let at = 0;
  while (at < content.length && content[at]!.type === "tool_result") at += 1;
  const closing = toolUseIds.map(interruptedResult);
  return { ...message, content: [...content.slice(0, at), ...closing, ...content.slice(at)] };
}

/** A user message of the results closing `toolUseIds`, in the turn of the calls' message. */
function resultsMessage(caller: Message, toolUseIds: readonly string[], clock: Clock): Message {
  const { sessionId, turnId } = caller;
  const content = toolUseIds.map(interruptedResult);
  return createMessage({ role: "user", sessionId, turnId, content, clock });
}
