import {
  type BaseMessage,
  type ContentBlock,
  HumanMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { INTERRUPTED_NOTICE } from "../core/interrupted-calls.js";
import { lateResultHead } from "../core/late-results.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { isRecord } from "./blocks-in.js";

type Call = { id?: string; name: string };

/** The error result that closes a call a later message went on without (`withId`: its id). */
function closing(call: Call & { id: string }, withId: boolean): ToolMessage {
  return new ToolMessage({
    content: INTERRUPTED_NOTICE,
    tool_call_id: call.id,
    name: call.name,
    status: "error",
    ...(withId ? { id: `interrupted-${call.id}` } : {}),
  });
}

/**
 * `messages` with each tool call that a later message went on without (a run that stopped
 * between the model's calls and their results, then a new request) closed by an error result
 * (`INTERRUPTED_NOTICE`) right where its results belonged, as the session's `addUserText`
 * closes them: no provider takes calls left unanswered. A call answered later, before the next
 * AI message after its calls, has its tool message moved up there instead (a system message,
 * the user's words or an AI message without calls in between): unlike the other formats'
 * closing, also across an AI message right after the results, which LangChain's chat models
 * refuse where it stands. A call answered only after another message and then an AI message is
 * closed, and its late tool message told as the user's text where it came (opening with the
 * notice, naming the call). The same array when nothing changed;
 * calls still waiting at the end (the open tail) stay open. `withIds`: each closing result has
 * the id `interrupted-<call id>` (the middleware's thread follows messages by id); without, none
 * (the one-call helper's, whose messages it makes carry none).
 */
export function closeInterruptedCalls(
  messages: readonly BaseMessage[],
  withIds = true,
): readonly BaseMessage[] {
  let out: BaseMessage[] | undefined;
  let open = new Map<string, Call & { id: string }>();
  const moved = new Set<number>();
  // The calls closed here: a result of one given later is told as text.
  const closed = new Set<string>();
  messages.forEach((message, index) => {
    if (moved.has(index)) return;
    // Not yet checked (a one-call helper's input): what is no message is left to the conversion.
    const type = isRecord(message) ? message.type : undefined;
    if (type === "tool") {
      const id = (message as ToolMessage).tool_call_id;
      if (!open.delete(id) && closed.has(id)) {
        out ??= messages.slice(0, index);
        out.push(toldAsText(message as ToolMessage, withIds));
        return;
      }
    } else if (open.size > 0) {
      out ??= messages.slice(0, index);
      const later = laterResults(messages, index, open);
      // One at a time: a spread of many calls would overflow the stack.
      for (const call of open.values()) {
        const at = later.get(call.id);
        if (at === undefined) {
          out.push(closing(call, withIds));
          closed.add(call.id);
        } else {
          out.push(messages[at]!);
          moved.add(at);
        }
      }
      open = new Map();
    }
    if (type === "ai") open = new Map(callsOf(message).map((call) => [call.id, call]));
    out?.push(message);
  });
  return out ?? messages;
}

/**
 * A tool message whose call was closed as interrupted, told as the user's text (every chat
 * model refuses a tool message there): the notice naming its call, then what it held.
 */
function toldAsText(message: ToolMessage, withId: boolean): HumanMessage {
  const head = lateResultHead(message.tool_call_id, message.status === "error");
  const { content } = message;
  return new HumanMessage({
    content:
      typeof content === "string"
        ? `${head}\n${content}`
        : [{ type: "text", text: head }, ...(content as ContentBlock[])],
    ...(withId ? { id: `late-${message.tool_call_id}` } : {}),
  });
}

/** The positions of the tool messages after `index`, before the next AI message, answering `open`. */
function laterResults(
  messages: readonly BaseMessage[],
  index: number,
  open: ReadonlyMap<string, Call>,
): Map<string, number> {
  const found = new Map<string, number>();
  for (let at = index + 1; at < messages.length; at += 1) {
    const message = messages[at];
    const type = isRecord(message) ? message.type : undefined;
    if (type === "ai") break;
    const id = type === "tool" ? (message as ToolMessage).tool_call_id : undefined;
    if (id !== undefined && open.has(id) && !found.has(id)) found.set(id, at);
  }
  return found;
}

/** An AI message's tool calls that have an id (and a name) to close them by. */
function callsOf(message: BaseMessage): (Call & { id: string })[] {
  const calls: unknown = (message as { tool_calls?: unknown }).tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.filter(
    (call): call is Call & { id: string } =>
      isRecord(call) && isNonEmptyString(call["id"]) && typeof call["name"] === "string",
  );
}
