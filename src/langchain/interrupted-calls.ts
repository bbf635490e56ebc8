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
type OpenCall = Call & { id: string };

/** Calls of one message up to which an id is looked for in the list itself. */
const FEW_CALLS = 16;

/**
 * The calls of the last AI message not yet answered, in order, as a map of them by id holds
 * them (of a repeated id, the later call in the first one's place), in one list for the whole
 * walk: a `Map` made, cleared or shrunk for each message allocated more than the walk itself.
 * Looked up in the list while few, by an index of their positions past that.
 */
class OpenCalls {
  readonly #calls: OpenCall[] = [];
  /** Whether each of {@link #calls} is still unanswered. */
  readonly #open: boolean[] = [];
  /** How many of {@link #calls} are the message's. */
  #count = 0;
  /** How many of those are unanswered. */
  #size = 0;
  #positions: Map<string, number> | undefined;

  get size(): number {
    return this.#size;
  }

  /** Opens the tool calls of `message` that have an id (and a name) to close them by, alone. */
  openOf(message: BaseMessage): void {
    this.clear();
    const calls: unknown = (message as { tool_calls?: unknown }).tool_calls;
    if (!Array.isArray(calls)) return;
    for (let index = 0; index < calls.length; index += 1) {
      const call: unknown = calls[index];
      if (!isRecord(call) || !isNonEmptyString(call["id"]) || typeof call["name"] !== "string")
        continue;
      const at = this.#find(call["id"]);
      if (at !== -1) {
        this.#calls[at] = call as OpenCall;
        continue;
      }
      const position = this.#count;
      this.#calls[position] = call as OpenCall;
      this.#open[position] = true;
      this.#count += 1;
      this.#size += 1;
      if (this.#positions !== undefined) this.#positions.set(call["id"], position);
      else if (this.#count > FEW_CALLS) this.#positions = this.#indexed();
    }
  }

  /** Answers the call `id`: whether it was open (as a map's `delete` would tell). */
  answer(id: unknown): boolean {
    const at = this.#find(id);
    if (at === -1) return false;
    this.#open[at] = false;
    this.#size -= 1;
    return true;
  }

  /** Whether the call `id` is open. */
  has(id: unknown): boolean {
    return this.#find(id) !== -1;
  }

  /** The calls unanswered, in order. */
  values(): OpenCall[] {
    const values: OpenCall[] = [];
    for (let at = 0; at < this.#count; at += 1) if (this.#open[at]) values.push(this.#calls[at]!);
    return values;
  }

  clear(): void {
    this.#count = 0;
    this.#size = 0;
    this.#positions = undefined;
  }

  /** Where the unanswered call `id` stands, -1 when none. */
  #find(id: unknown): number {
    if (this.#size === 0) return -1;
    if (this.#positions !== undefined) {
      const at = this.#positions.get(id as string);
      return at !== undefined && this.#open[at] === true ? at : -1;
    }
    for (let at = 0; at < this.#count; at += 1)
      if (this.#open[at] === true && this.#calls[at]!.id === id) return at;
    return -1;
  }

  #indexed(): Map<string, number> {
    const positions = new Map<string, number>();
    for (let at = 0; at < this.#count; at += 1) positions.set(this.#calls[at]!.id, at);
    return positions;
  }
}

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
  const open = new OpenCalls();
  let moved: Set<number> | undefined;
  // The calls closed here: a result of one given later is told as text.
  let closed: Set<string> | undefined;
  // Its length read once, as `forEach` reads it.
  const { length } = messages;
  for (let index = 0; index < length; index += 1) {
    const message = messages[index];
    // A hole is skipped, as `forEach` skips it (the conversion names it).
    if ((message === undefined && !(index in messages)) || moved?.has(index) === true) continue;
    // Not yet checked (a one-call helper's input): what is no message is left to the conversion.
    const type = isRecord(message) ? message.type : undefined;
    if (type === "tool") {
      const id = (message as ToolMessage).tool_call_id;
      if (!open.answer(id) && closed?.has(id) === true) {
        out ??= messages.slice(0, index);
        out.push(toldAsText(message as ToolMessage, withIds));
        continue;
      }
    } else if (open.size > 0) {
      out ??= messages.slice(0, index);
      const later = laterResults(messages, index, open);
      closed ??= new Set();
      moved ??= new Set();
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
      open.clear();
    }
    if (type === "ai") open.openOf(message as BaseMessage);
    out?.push(message as BaseMessage);
  }
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
  open: OpenCalls,
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
