import type { Message, ToolResultBlock } from "./message.js";
import { type Clock, createMessage } from "./message-factory.js";

/** The content of the error result that closes a tool call the conversation went on without. */
export const INTERRUPTED_NOTICE =
  "[Tool call interrupted: the conversation went on before its result was given]";

/** The error result ({@link INTERRUPTED_NOTICE}) that closes the call `toolUseId`. */
export function interruptedResult(toolUseId: string): ToolResultBlock {
  return { type: "tool_result", toolUseId, content: INTERRUPTED_NOTICE, isError: true };
}

/**
 * `messages` with each tool call that a later message went on without (a run stopped between
 * the model's calls and their results, then a new request) closed by an error result
 * ({@link interruptedResult}), as the session's `addUserText` closes them: no provider takes a
 * call left unanswered. A user message right after the calls gets the results it lacks after
 * its own (results lead a message); an assistant message right after them gets a user message
 * of results before it. Calls still waiting at the end stay open: those of the last message,
 * and those a last message of results may still answer (the open tail). `previous`: the
 * message before `messages`, whose calls the first may answer. The same array when no call was
 * closed.
 */
export function closeInterruptedCalls(
  messages: readonly Message[],
  clock: Clock,
  previous?: Message,
): readonly Message[] {
  let out: Message[] | undefined;
  let caller = previous;
  let waiting = previous === undefined ? [] : callsOf(previous);
  const last = messages.length - 1;
  for (let index = 0; index <= last; index += 1) {
    const message = messages[index]!;
    let kept = message;
    if (waiting.length > 0 && message.role === "assistant") {
      out ??= messages.slice(0, index);
      const { sessionId, turnId } = caller!;
      const content = waiting.map(interruptedResult);
      out.push(createMessage({ role: "user", sessionId, turnId, content, clock }));
    } else if (waiting.length > 0) {
      const answered = new Set<string>();
      for (const block of message.content)
        if (block.type === "tool_result") answered.add(block.toolUseId);
      const missing = waiting.filter((id) => !answered.has(id));
      const openTail = index === last && answered.size > 0;
      if (missing.length > 0 && !openTail) kept = withResults(message, missing);
    }
    if (kept !== message) out ??= messages.slice(0, index);
    out?.push(kept);
    caller = message;
    waiting = callsOf(message);
  }
  return out ?? messages;
}

/** The ids of an assistant message's tool calls, in order (none for a user message). */
function callsOf(message: Message): string[] {
  if (message.role !== "assistant") return [];
  const ids: string[] = [];
  for (const block of message.content) if (block.type === "tool_use") ids.push(block.id);
  return ids;
}

/** `message` with the results closing `toolUseIds` after the results it leads with. */
function withResults(message: Message, toolUseIds: readonly string[]): Message {
  const { content } = message;
  let at = 0;
  while (at < content.length && content[at]!.type === "tool_result") at += 1;
  const closing = toolUseIds.map(interruptedResult);
  return { ...message, content: [...content.slice(0, at), ...closing, ...content.slice(at)] };
}
